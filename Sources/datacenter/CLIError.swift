/// An error for the person at the terminal: printed as `error: <message>`, exit status 1.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
