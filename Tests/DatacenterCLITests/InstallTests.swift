import Foundation
import Testing

/// `make install` and `make uninstall`: what one puts under PREFIX the other removes, and the
/// completions install writes are ones the binary generates for each shell.
@Suite struct InstallTests {
    /// `make -n TARGET PREFIX=prefix` in the source tree: the commands it would run.
    static func plan(_ target: String, prefix: String) throws -> String {
        let result = try runProcess("/usr/bin/env", ["make", "-s", "-n", "-C", SQLCipherReference.packageRoot, target, "PREFIX=" + prefix])
        #expect(result.status == 0, "\(result.output)")
        return result.output
    }

    /// The quoted paths under `prefix` in `text`.
    static func paths(in text: String, under prefix: String) -> Set<String> {
        Set(text.components(separatedBy: "\"").filter { $0.hasPrefix(prefix + "/") })
    }

    @Test func uninstallRemovesEveryFileInstallWrites() throws {
        let prefix = "/nonexistent/prefix"
        let install = try Self.plan("install", prefix: prefix)
        // The folders install creates stay: others' files may share them.
        let folders = install.split(separator: "\n").filter { $0.hasPrefix("install -d") }.map(String.init).joined()
        let written = Self.paths(in: install, under: prefix).subtracting(Self.paths(in: folders, under: prefix))
        #expect(written == [prefix + "/bin/datacenter", prefix + "/share/man/man1/datacenter.1",
                            prefix + "/share/bash-completion/completions/datacenter",
                            prefix + "/share/zsh/site-functions/_datacenter",
                            prefix + "/share/fish/vendor_completions.d/datacenter.fish"], "\(install)")
        let removed = Self.paths(in: try Self.plan("uninstall", prefix: prefix), under: prefix)
        #expect(removed == written)
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func theBinaryWritesACompletionScriptForEachShell(_ shell: String) throws {
        let result = try CLI.run(["--generate-completion-script", shell])
        #expect(result.status == 0, "\(result.stderr)")
        for subcommand in ["snapshot", "browse", "kv"] { #expect(result.stdout.contains(subcommand), "\(shell): \(subcommand)") }
    }

    /// The README names every Debian package `make` installs, so a reader can install them
    /// by hand first.
    @Test func theReadmeNamesEveryPackageMakeInstalls() throws {
        let root = SQLCipherReference.packageRoot
        let makefile = try String(contentsOfFile: root + "/Makefile", encoding: .utf8)
        let line = try #require(makefile.split(separator: "\n").first { $0.hasPrefix("APT_PACKAGES") })
        let packages = line.split(separator: "=", maxSplits: 1).last.map { $0.split(separator: " ").map(String.init) } ?? []
        #expect(packages.count >= 8, "\(line)")
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
        let words = Set(readme.components(separatedBy: CharacterSet(charactersIn: " `\n(),")))
        for package in packages { #expect(words.contains(package), "README.md does not name \(package)") }
    }
}
