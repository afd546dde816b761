import Foundation

/// Writes a `PropertyListValue` as a binary property list (`bplist00`), the format Apple's
/// `setObject` stores. Written here rather than through `PropertyListSerialization`: a
/// statically linked Foundation cannot bridge nested Swift collections to a property list.
///
/// The format: the `bplist00` header, the objects, a table of their offsets, and a 32-byte
/// trailer (offset size, reference size, object count, top object, table offset).
enum BinaryPropertyListWriter {
    static func data(for value: PropertyListValue) -> Data {
        // Flatten depth-first: each object gets an index; containers refer to children by it.
        func count(_ v: PropertyListValue) -> Int {
            switch v {
            case .array(let a): return 1 + a.reduce(0) { $0 + count($1) }
            case .dictionary(let d): return 1 + d.reduce(0) { $0 + 1 + count($1.value) }
            default: return 1
            }
        }
        let total = count(value)
        let referenceSize = total < 256 ? 1 : (total < 65_536 ? 2 : 4)
        var out = Data("bplist00".utf8)
        var offsets: [Int] = []

        /// Writes `v` and its children; returns its index.
        @discardableResult
        func write(_ v: PropertyListValue) -> Int {
            let index = offsets.count
            offsets.append(0)
            switch v {
            case .array(let a):
                let children = a.map { write($0) }
                offsets[index] = out.count
                appendMarker(0xA0, count: children.count, to: &out)
                for child in children { appendUInt(UInt64(child), size: referenceSize, to: &out) }
            case .dictionary(let d):
                let keys = d.keys.sorted()
                let keyIndices = keys.map { write(.string($0)) }
                let valueIndices = keys.map { write(d[$0]!) }
                offsets[index] = out.count
                appendMarker(0xD0, count: keys.count, to: &out)
                for child in keyIndices + valueIndices { appendUInt(UInt64(child), size: referenceSize, to: &out) }
            default:
                offsets[index] = out.count
                appendScalar(v, to: &out)
            }
            return index
        }
        let top = write(value)
        let tableOffset = out.count
        let offsetSize = tableOffset < 256 ? 1 : (tableOffset < 65_536 ? 2 : (tableOffset < 1 << 32 ? 4 : 8))
        for offset in offsets { appendUInt(UInt64(offset), size: offsetSize, to: &out) }
        out.append(contentsOf: [UInt8](repeating: 0, count: 6))
        out.append(UInt8(offsetSize))
        out.append(UInt8(referenceSize))
        appendUInt(UInt64(offsets.count), size: 8, to: &out)
        appendUInt(UInt64(top), size: 8, to: &out)
        appendUInt(UInt64(tableOffset), size: 8, to: &out)
        return out
    }

    private static func appendScalar(_ v: PropertyListValue, to out: inout Data) {
        switch v {
        case .bool(let b): out.append(b ? 0x09 : 0x08)
        case .integer(let i):
            if i >= 0 && i < 1 << 8 { out.append(0x10); appendUInt(UInt64(i), size: 1, to: &out) }
            else if i >= 0 && i < 1 << 16 { out.append(0x11); appendUInt(UInt64(i), size: 2, to: &out) }
            else if i >= 0 && i < 1 << 32 { out.append(0x12); appendUInt(UInt64(i), size: 4, to: &out) }
            else { out.append(0x13); appendUInt(UInt64(bitPattern: i), size: 8, to: &out) }
        case .real(let d):
            out.append(0x23)
            appendUInt(d.bitPattern, size: 8, to: &out)
        case .date(let date):
            out.append(0x33)
            appendUInt(date.timeIntervalSinceReferenceDate.bitPattern, size: 8, to: &out)
        case .data(let d):
            appendMarker(0x40, count: d.count, to: &out)
            out.append(d)
        case .string(let s):
            if s.utf8.allSatisfy({ $0 < 0x80 }) {
                appendMarker(0x50, count: s.utf8.count, to: &out)
                out.append(contentsOf: s.utf8)
            } else {
                let units = Array(s.utf16)
                appendMarker(0x60, count: units.count, to: &out)
                for unit in units { appendUInt(UInt64(unit), size: 2, to: &out) }
            }
        case .array, .dictionary:
            break   // written by `data(for:)`
        }
    }

    /// A type marker with its count: in the low nibble when under 15, else 0xF and an
    /// integer object.
    private static func appendMarker(_ marker: UInt8, count: Int, to out: inout Data) {
        if count < 15 {
            out.append(marker | UInt8(count))
        } else {
            out.append(marker | 0x0F)
            appendScalar(.integer(Int64(count)), to: &out)
        }
    }

    private static func appendUInt(_ value: UInt64, size: Int, to out: inout Data) {
        for shift in stride(from: (size - 1) * 8, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
