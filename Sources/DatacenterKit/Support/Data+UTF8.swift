import Foundation

extension Data {
    /// The UTF-8 bytes of `string`, copied in one go. `Data(string.utf8)` does the same
    /// through the generic sequence initializer, whose run-time type checks cost more than
    /// the copy on a hot path (each value a store encrypts).
    package init(utf8Of string: String) {
        var string = string
        self = string.withUTF8 { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else { return Data() }
            return Data(bytes: base, count: bytes.count)
        }
    }
}
