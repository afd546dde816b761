import Foundation
import Testing

/// A big CSV streams: the import's memory stays flat whatever the file's size (a slow tier:
/// `make test` and CI run it, `make quick` does not). The file is 128 MB (the issue's 1 GB
/// with `DATACENTER_IMPORT_TEST_MB=1024`); the peak is the kernel's count of the command's
/// resident memory (`VmHWM`).
@Suite struct ImportMemoryTests {
    @Test func aBigCSVImportsInFlatMemory() throws {
        // Under a sanitizer, memory is the sanitizer's: not this test's question.
        let environment = ProcessInfo.processInfo.environment
        guard environment["ASAN_OPTIONS"] == nil, environment["TSAN_OPTIONS"] == nil else { return }
        let megabytes = Int(environment["DATACENTER_IMPORT_TEST_MB"] ?? "") ?? 128
        let folder = TemporaryFolder()
        let csv = folder.file("big.csv")
        FileManager.default.createFile(atPath: csv, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: csv))
        var chunk = "id,name,note\n"
        var row = 0
        while chunk.utf8.count < 1 << 20 {
            chunk += "\(row),\"name \(row), quoted\",\(String(repeating: "x", count: 60))\n"
            row += 1
        }
        let body = Data(chunk.dropFirst("id,name,note\n".count).utf8)
        try handle.write(contentsOf: Data("id,name,note\n".utf8))
        for _ in 0..<megabytes { try handle.write(contentsOf: body) }
        try handle.close()
        let db = folder.file("big.db")
        let (status, peak) = try peakResidentMegabytes(CLI.binaryPath, ["import", csv, db, "--csv", "--table", "t"])
        #expect(status == 0)
        #expect(peak < 40, "peak resident memory \(peak) MB for a \(megabytes) MB CSV")
        #expect(try sqlite3Shell(db, "select count(*) from t") == String(row * megabytes))
    }
}
