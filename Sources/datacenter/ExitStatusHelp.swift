/// The paragraph that ends every command's `--help`: its exit statuses. docs/CLI.md makes them
/// a contract; a script's author looks for them in the help of the command they call, not only
/// in the root's.
enum ExitStatusHelp {
    /// `discussion`, then the exit statuses. `one` says when the command exits 1 besides an
    /// error (`"when the key is missing"`); the generic meanings of 0 and 2 follow CLI.md.
    static func discussion(_ discussion: String = "", one: String? = nil) -> String {
        let error = "an error (message on stderr starting 'error:')"
        let statuses = "Exit status: 0 success; 1 " + (one.map { "\($0), or on \(error)" } ?? error) + "; 2 a usage error."
        return discussion.isEmpty ? statuses : discussion + "\n\n" + statuses
    }
}
