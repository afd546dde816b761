import DatacenterDAO
import DatacenterKit
import Foundation

/// The rows a table grid shows (its filter and sort) written to a file (`E`), off the input
/// loop: CSV, JSON lines or SQL `INSERT`s as the file name's extension says (`ExportFormat`),
/// through the engine's `TableExport`, on a read-only connection of its own.
///
/// The file is written whole or not at all, mode 0600 (`PrivateFile.writeAtomically`): a
/// cancel (Esc) or a failure leaves nothing behind, and an existing file is replaced only
/// when the user confirmed it (`replace`). Encrypted columns are written decrypted with the
/// keys; a value the keys do not open stops the export with the reason, so neither
/// ciphertext posing as the value nor a half-file is ever written (as `datacenter export`
/// without `--raw`).
///
/// The connection is opened by `run` on the thread that runs it and closed when it returns;
/// `cancel()` (from any thread) sets the flag the export checks between rows and interrupts
/// the statement (a sort of many rows can take long before the first row comes).
package final class GridExport: Sendable {
    /// The export's id: its events carry it.
    package let id: Int
    /// The rows exported: from which file and table (or query), filtered and ordered how.
    let subject: GridExportSubject
    /// The file written, as typed (`~` expanded when it runs).
    package let destination: String
    /// The format the file name's extension names.
    package let format: ExportFormat
    /// The keys that decrypt the subject's encrypted columns.
    let keys: KeyRing
    /// The keys of an encrypted store file.
    let databaseKeys: DatabaseKeyList
    /// True when the user confirmed replacing an existing file.
    package let replace: Bool
    /// True when the rows go to the terminal's clipboard (`Y` with rows selected), not to a
    /// file: `destination` only names them then.
    package let toClipboard: Bool
    /// How long the read waits for another connection's lock, in seconds.
    let busyTimeout: Double
    /// Whether `cancel()` was called, and the connection while `run` has it open.
    private let state = LockedState<(cancelled: Bool, running: Database?)>((false, nil))

    /// What became of an export.
    package enum Outcome: Sendable, Equatable {
        /// Written: this many rows, to this file (the path used).
        case written(rows: Int, path: String)
        /// Read for the clipboard: this many rows, as this text (`toClipboard`).
        case copied(rows: Int, text: String)
        /// The file exists and replacing it was not confirmed: nothing was written.
        case exists(path: String)
        /// Cancelled with Esc: nothing was written (no file left behind).
        case cancelled
        /// Failed with this reason, naming the file: nothing was written.
        case failed(String)
    }

    /// An export not yet run; `BrowserCommand.exportGrid` runs it.
    init(id: Int, subject: GridExportSubject, destination: String, format: ExportFormat, keys: KeyRing,
         databaseKeys: DatabaseKeyList = .empty, replace: Bool, toClipboard: Bool = false, busyTimeout: Double) {
        self.id = id
        self.toClipboard = toClipboard
        self.databaseKeys = databaseKeys
        self.subject = subject
        self.destination = destination
        self.format = format
        self.keys = keys
        self.replace = replace
        self.busyTimeout = busyTimeout
    }

    /// The most bytes of text `toClipboard` copies: more is refused, as terminals and tmux
    /// drop or cut a clipboard sequence much larger than that.
    static let clipboardLimit = 4 << 20

    /// The formats a file name may name, for the messages that list them.
    package static let extensions = ".csv, .jsonl (or .ndjson), .sql"

    /// The path written: `destination` with a leading `~` expanded.
    package var path: String {
        guard destination == "~" || destination.hasPrefix("~/"),
              let home = ProcessInfo.processInfo.environment["HOME"], home.hasPrefix("/") else { return destination }
        return home + destination.dropFirst()
    }

    /// True once `cancel()` was called.
    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Stops the export: now if it runs, before it starts otherwise. Safe from any thread.
    package func cancel() {
        state.withLock { state in
            state.cancelled = true
            state.running?.interrupt()
        }
    }

    /// Writes the file, posting `exportProgress` every few thousand rows; returns
    /// `exportFinished` with the outcome.
    func run(post: (BrowserEvent) -> Void) -> BrowserEvent {
        .exportFinished(exportID: id, outcome: outcome(post: post))
    }

    private func outcome(post: (BrowserEvent) -> Void) -> Outcome {
        let path = self.path
        if !toClipboard, !replace, FileManager.default.fileExists(atPath: path) { return .exists(path: path) }
        var export = TableExport(table: subject.table, format: format)
        export.relation = subject.relation
        export.filter = subject.filter
        export.order = subject.order
        let keys = self.keys
        for column in subject.encryptedColumns {
            export.transforms[column] = { value in
                do { return try CryptColumn.plaintext(of: value, with: keys) } catch {
                    throw GridExportError("column \(column) does not decrypt (\(error)): nothing written, so no ciphertext passes for its value")
                }
            }
        }
        do {
            let db = try databaseKeys.open(path: subject.storePath, mode: .readOnly, busyTimeout: busyTimeout).database
            let started: Bool = state.withLock { state in
                if !state.cancelled { state.running = db }
                return !state.cancelled
            }
            guard started else { return .cancelled }
            defer { state.withLock { $0.running = nil } }
            var rows = 0
            var copied: [UInt8] = []
            try withoutActuallyEscaping(post) { post in
                let progress = { [unowned self] (written: Int) -> Bool in
                    if self.isCancelled { return false }
                    post(.exportProgress(exportID: self.id, rows: written))
                    return true
                }
                try db.withInterruptCheck({ [unowned self] in self.isCancelled }) {
                    guard !toClipboard else {
                        rows = try export.run(on: db, writing: { chunk in
                            guard copied.count + chunk.count <= Self.clipboardLimit else {
                                throw GridExportError("the rows are more than \(Self.clipboardLimit >> 20) MB as text, too much for the "
                                                      + "clipboard: nothing copied (E exports them to a file)")
                            }
                            copied += chunk
                        }, progress: progress)
                        if self.isCancelled { throw TableExportError.cancelled(afterRows: rows) }
                        return
                    }
                    try PrivateFile.writeAtomically(to: path) { handle in
                        rows = try export.run(on: db, to: handle, progress: progress)
                        // A cancel after the last row still leaves no file behind.
                        if self.isCancelled { throw TableExportError.cancelled(afterRows: rows) }
                    }
                }
            }
            if toClipboard { return .copied(rows: rows, text: String(decoding: copied, as: UTF8.self)) }
            return .written(rows: rows, path: path)
        } catch TableExportError.cancelled {
            return .cancelled
        } catch let error as DatabaseError where error.isInterrupted {
            return .cancelled
        } catch {
            if toClipboard { return .failed("cannot copy the rows of \(subject.table): \(error)") }
            return .failed("cannot export \(subject.table) to \(path): \(error)")
        }
    }
}

/// Why an export from the browser stopped (a value that does not decrypt), in words.
package struct GridExportError: Error, CustomStringConvertible {
    package let description: String

    /// The error that says `description`.
    package init(_ description: String) { self.description = description }
}
