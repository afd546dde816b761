import ArgumentParser
import DatacenterKit
import Foundation

/// `datacenter file`: encrypted files.
struct FileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "file",
        abstract: "Encrypt, decrypt and print files in the chunked AES-256-GCM file format.",
            discussion: ExitStatusHelp.discussion(),
        subcommands: [Encrypt.self, Decrypt.self, Cat.self])

    struct Encrypt: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "encrypt", abstract: "Encrypt IN into OUT with the first --key.",
            discussion: ExitStatusHelp.discussion())
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The plain file.") var input: String
        @Argument(help: "The encrypted file to write.") var output: String
        func run() throws {
            guard let key = try global.keyRing().keys.first else { throw CLIError("encrypting needs a key: pass --key or --app-key, or set DATACENTER_KEY or DATACENTER_APP_KEY") }
            try EncryptedFile.encrypt(from: expandTilde(input), to: expandTilde(output), key: key)
        }
    }

    struct Decrypt: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "decrypt", abstract: "Decrypt IN into OUT; OUT appears only if all of IN authenticates.",
            discussion: ExitStatusHelp.discussion())
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The encrypted file.") var input: String
        @Argument(help: "The plain file to write.") var output: String
        func run() throws {
            let version = try EncryptedFile.decrypt(from: expandTilde(input), to: expandTilde(output), keys: global.keyRing())
            FileCommand.noteOldFormat(input, version: version)
        }
    }

    /// Tells on stderr that `file` is in the old format, whose chunks are not bound to it.
    static func noteOldFormat(_ file: String, version: Int) {
        guard version < EncryptedFile.currentVersion else { return }
        Output.error("note: \(file) is format \(version) (chunks not bound to the file); re-encrypt it to upgrade")
    }

    struct Cat: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "cat", abstract: "Print a file: decrypted when encrypted, as it is when it is text.",
            discussion: ExitStatusHelp.discussion("Each chunk is authenticated before it is printed; a truncated or altered file stops with exit status 1. A file without the encrypted-file header is printed as it is only when it is text (UTF-8 without NUL bytes); anything else, such as an encrypted file whose header is damaged, is refused with exit status 1."))
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The file.") var input: String
        func run() throws {
            let path = expandTilde(input)
            let out = FileHandle.standardOutput
            let kind = try EncryptedFileKind.of(path: path)
            switch kind {
            case .encrypted:
                let reader = try EncryptedFileReader(path: path, keys: global.keyRing())
                FileCommand.noteOldFormat(input, version: reader.formatVersion)
                while let chunk = try reader.readChunk() { out.write(chunk) }
            case .unrecognized(resemblesHeader: true):
                throw CLIError("\(path) looks like an encrypted file with a damaged header: not printed")
            case .unrecognized(resemblesHeader: false):
                throw CLIError("\(path) is neither an encrypted file nor text: not printed (use cat for a plain binary file)")
            case .text:
                let handle = try RegularFile.openForReading(path)
                defer { try? handle.close() }
                while let data = try handle.read(upToCount: 65_536), !data.isEmpty { out.write(data) }
            }
        }
    }
}
