import Foundation
import Testing

/// The lock rule's trap, for real: a debug build that waits, holding a store, on a queue whose
/// work takes that store dies at once with a message naming both, where it would otherwise
/// hang the first time work is queued there.
@Suite struct StoreLockRuleTrapTests {
    #if DEBUG
    @Test func breakingTheRuleTrapsInADebugBuild() throws {
        let folder = TemporaryFolder()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CrashTests.writerPath)
        process.arguments = ["lock-rule", folder.file("held.sqlite")]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        // No runtime backtrace: under AddressSanitizer the backtracer's own stack reads are
        // reported as errors and end the process with an exit status instead of the signal.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // Trapped: killed by the signal (an exit status only if a sanitizer took the signal).
        #expect(process.terminationReason == .uncaughtSignal || process.terminationStatus != 0, "\(text)")
        #expect(text.contains("holds the store \(folder.file("held.sqlite"))") && text.contains("'crash-writer.store-work'"))
        #expect(!text.contains("waited without a trap"))
    }
    #endif
}
