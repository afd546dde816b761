import Foundation

/// A property-list value: what `setObject` stores (number, string, data, date, array,
/// dictionary), held as a Swift value so it crosses threads and compares for equality.
public indirect enum PropertyListValue: Sendable, Hashable {
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    case string(String)
    case data(Data)
    case date(Date)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])

    /// Encodes as a binary property list, the format `setObject` writes.
    public func binaryPropertyList() throws -> Data {
        BinaryPropertyListWriter.data(for: self)
    }

    /// Decodes a property list in any of its formats (binary, XML).
    /// - throws: `KVError.corruptValue` when `data` is not a property list (never
    ///   Foundation's raw `NSCocoaErrorDomain` error).
    public init(propertyList data: Data) throws {
        let object: Any
        do { object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil) } catch {
            throw KVError.corruptValue("not a valid property list (\(data.count) bytes)")
        }
        try self.init(foundationObject: object)
    }

    init(foundationObject object: Any) throws {
        switch object {
        case let b as Bool where type(of: object) == Bool.self: self = .bool(b)
        case let s as String: self = .string(s)
        case let d as Data: self = .data(d)
        case let d as Date: self = .date(d)
        case let a as [Any]: self = .array(try a.map(PropertyListValue.init(foundationObject:)))
        case let d as [String: Any]: self = .dictionary(try d.mapValues(PropertyListValue.init(foundationObject:)))
        case let n as NSNumber:
            let type = String(cString: n.objCType)
            if type == "c" || type == "B" {
                self = .bool(n.boolValue)
            } else if type == "d" || type == "f" {
                self = .real(n.doubleValue)
            } else {
                self = .integer(n.int64Value)
            }
        case let i as Int: self = .integer(Int64(i))
        case let i as Int64: self = .integer(i)
        case let d as Double: self = .real(d)
        default:
            throw KVError.unsupportedValue("\(type(of: object)) is not a property-list type")
        }
    }

    /// The value as JSON-compatible Foundation objects: data as `{"$data": base64}`, dates
    /// as `{"$date": ISO 8601}`, so nothing is lost in a JSON view.
    public var jsonObject: Any {
        switch self {
        case .integer(let v): return v
        case .real(let d): return d
        case .bool(let b): return b
        case .string(let s): return s
        case .data(let d): return ["$data": d.base64EncodedString()]
        case .date(let d): return ["$date": ISO8601DateFormatter().string(from: d)]
        case .array(let a): return a.map(\.jsonObject)
        case .dictionary(let d): return d.mapValues(\.jsonObject)
        }
    }

    /// Reads the JSON form written by `jsonObject` (and plain JSON) back into a value.
    public init(jsonObject object: Any) throws {
        switch object {
        case let d as [String: Any] where d.count == 1 && d["$data"] is String:
            guard let data = Data(base64Encoded: d["$data"] as! String) else {
                throw KVError.unsupportedValue("$data is not valid base64")
            }
            self = .data(data)
        case let d as [String: Any] where d.count == 1 && d["$date"] is String:
            guard let date = ISO8601DateFormatter().date(from: d["$date"] as! String) else {
                throw KVError.unsupportedValue("$date is not an ISO 8601 date")
            }
            self = .date(date)
        case is NSNull:
            throw KVError.unsupportedValue("null has no property-list form")
        // Containers recurse through this initializer, so nested `$data` and `$date` read back.
        case let a as [Any]: self = .array(try a.map(PropertyListValue.init(jsonObject:)))
        case let d as [String: Any]: self = .dictionary(try d.mapValues(PropertyListValue.init(jsonObject:)))
        default:
            try self.init(foundationObject: object)
        }
    }
}
