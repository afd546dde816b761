/// What a root's database rekey (`DataCenter.rekeyDatabases`) did to one SQLite file.
public struct DatabaseRekeyResult: Sendable, Equatable {
    /// What became of the file.
    public enum Outcome: Sendable, Equatable {
        /// A plain file, now encrypted with the new key.
        case encrypted
        /// An encrypted file, moved from an older key (or format) to the new one.
        case rekeyed
        /// Under the new key already (a rerun after an interruption finds these).
        case alreadyDone
        /// Left as it was, for this reason.
        case failed(String)
    }

    /// A name for people, as `DataCenter.RekeyTarget` gives it.
    public let name: String
    /// The file.
    public let path: String
    /// What became of it.
    public let outcome: Outcome

    /// The reason, when the file was left as it was.
    public var failure: String? {
        if case .failed(let reason) = outcome { return reason }
        return nil
    }
}
