/// The lines where two texts differ, expected and actual, numbered: what a failed snapshot
/// comparison prints, so the failure says what changed on the screen instead of only that it
/// did. Each line is shown between `‹` and `›` (trailing spaces count on a screen), with the
/// column where the two first differ; at most `limit` lines are shown, the rest counted.
/// Empty when the texts are equal.
public func lineDifference(expected: String, actual: String, limit: Int = 12) -> String {
    // A text's final newline ends its last line; it does not start another.
    func lines(_ text: String) -> [String] {
        let body = text.hasSuffix("\n") ? text.dropLast() : Substring(text)
        return body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }
    let old = lines(expected), new = lines(actual)
    var differing: [Int] = []
    for index in 0..<max(old.count, new.count) {
        let a = index < old.count ? old[index] : nil, b = index < new.count ? new[index] : nil
        if a != b { differing.append(index) }
    }
    guard !differing.isEmpty else { return "" }
    func shown(_ line: String?) -> String { line.map { "‹\($0)›" } ?? "(no such line)" }
    var out = "\(differing.count) of \(max(old.count, new.count)) lines differ:"
    for index in differing.prefix(limit) {
        let a = index < old.count ? old[index] : nil, b = index < new.count ? new[index] : nil
        var heading = "\nline \(index + 1)"
        if let a, let b {
            let column = zip(a, b).prefix { $0 == $1 }.count + 1
            heading += ", from column \(column)"
        }
        out += heading + "\n  expected: " + shown(a) + "\n  actual:   " + shown(b)
    }
    if differing.count > limit { out += "\n… and \(differing.count - limit) more differing lines" }
    return out
}
