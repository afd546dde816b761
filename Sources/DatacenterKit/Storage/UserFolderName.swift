/// Turns a user id (any string) into a folder name and back.
///
/// Letters, digits, `-`, `_` and `.` are kept; every other byte of the UTF-8 form becomes
/// `%XX`, as does a leading `.`, so an id can never name `..`, a hidden folder, or a path
/// with a separator: a user's store always stays inside the root.
public enum UserFolderName {
    /// The longest folder name allowed (file systems allow 255 bytes).
    public static let maximumLength = 240

    /// The folder name for `userId`.
    /// - throws: `StorageError.invalidUserId` for an empty id or one too long once encoded.
    public static func encode(_ userId: String) throws -> String {
        guard !userId.isEmpty else { throw StorageError.invalidUserId("a user id cannot be empty") }
        var out = ""
        for (offset, byte) in userId.utf8.enumerated() {
            let c = Character(Unicode.Scalar(byte))
            let safe = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || (byte == UInt8(ascii: ".") && offset > 0)
            if safe { out.append(c) } else {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        guard out.utf8.count <= maximumLength else {
            throw StorageError.invalidUserId("the id is too long (\(userId.utf8.count) bytes)")
        }
        return out
    }

    /// The user id a folder name stands for, or nil when the name is not one `encode` makes.
    public static func decode(_ folderName: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = folderName.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let h = iterator.next(), let l = iterator.next(),
                      let value = UInt8(String(decoding: [h, l], as: UTF8.self), radix: 16) else { return nil }
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        guard let id = String(validating: bytes, as: UTF8.self), !id.isEmpty,
              (try? encode(id)) == folderName else { return nil }
        return id
    }
}

extension String {
    /// The string with `pad` prepended up to `width` characters (unchanged when already as long).
    package func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
