import ArgumentParser
import DatacenterKit
import Foundation

/// `datacenter clean`: run the cache cleaner over a root.
struct CleanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clean",
        abstract: "Run the cache cleaner: purgeable values, purgeable folders, and task-file paths.",
        discussion: ExitStatusHelp.discussion("""
            Without --tasks, runs the built-in tasks cleanPurgeableValues and cleanPurgeablePaths. A task file is JSON: \
            {"tasks": [{"builtin": "cleanPurgeableValues"}, {"path": "Caches", "entries": ["*.cache", "LogFiles"]}]}; \
            paths are relative to the root. cleanDefaultPreferences (the reference's name) is cleanPurgeableValues; \
            cleanPurgeablePaths also empties the manual purgeable folders. Tasks an app registers in code \
            ({"registered": "name"}) cannot run here: a file naming one is refused. Shows a progress bar on a terminal and a summary at the end.
            """))

    @OptionGroup var global: GlobalOptions
    @Option(help: ArgumentHelp("A cleaning-task file (JSON).", valueName: "file")) var tasks: String?
    @Flag(help: "Report what would be deleted; delete nothing.") var dryRun = false
    @Flag(help: "Print {\"dryRun\",\"tasks\":[{\"task\",\"items\",\"bytes\"}],\"megabytesFreed\",\"sizeBefore\",\"sizeAfter\"}.") var json = false

    func run() throws {
        let center = try global.openDataCenter(readOnly: false)
        let cleaner = try tasks.map { try CacheCleaner(dataCenter: center, tasksFile: expandTilde($0)) } ?? CacheCleaner(dataCenter: center)
        // Tasks an app registers in code exist only in that app.
        let registered = cleaner.tasks.compactMap(\.registered)
        if let file = cleaner.tasksFile, !registered.isEmpty {
            throw CLIError("\(Output.safe(file, limit: 400)): names app-registered task(s) \(registered.map { Output.safe($0) }.joined(separator: ", ")): "
                           + "only the app that registers them can run them; the command line has none")
        }
        let bar = ProgressBar(json: json)
        let report = try cleaner.run(dryRun: dryRun) { phase, fraction in
            guard phase != .done else { return }
            bar.show(phase.rawValue, fraction: fraction)
        }
        bar.clear()
        for store in report.damagedStores {
            Output.error("warning: \(Output.safe(store.path, limit: 400)): damaged, skipped: \(Output.safe(store.reason, limit: 200))")
        }
        if json {
            var object: [String: Any] = [
                "dryRun": report.dryRun, "megabytesFreed": (report.megabytesFreed * 1000).rounded() / 1000,
                "sizeBefore": report.sizeBefore, "sizeAfter": report.sizeAfter,
                "tasks": report.tasks.map { ["task": $0.task, "items": $0.itemsDeleted, "bytes": $0.bytesFreed] as [String: Any] }]
            // Only when a store was skipped, so the usual document keeps its shape.
            if !report.damagedStores.isEmpty {
                object["damagedStores"] = report.damagedStores.map { ["path": $0.path, "reason": $0.reason] }
            }
            try Output.json(object)
            return
        }
        Output.table(["TASK", dryRun ? "WOULD DELETE" : "DELETED", "MB"], report.tasks.map {
            [Output.safe($0.task), String($0.itemsDeleted), String(format: "%.2f", Double($0.bytesFreed) / 1_048_576)]
        })
        Output.line(String(format: dryRun ? "would free %.2f MB (nothing was deleted)" : "freed %.2f MB", report.megabytesFreed))
    }
}
