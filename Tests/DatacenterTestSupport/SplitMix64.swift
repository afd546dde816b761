import Foundation

/// SplitMix64: a tiny, fast, seedable generator, so property, fuzz and crash tests can be
/// replayed from the seed their failure messages print. Shared by every test target.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public private(set) var state: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<n` (0 when `n` is not positive).
    public mutating func below(_ n: Int) -> Int { n > 0 ? Int(next() % UInt64(n)) : 0 }

    /// Random bytes.
    public mutating func bytes(_ count: Int) -> Data {
        Data((0..<count).map { _ in UInt8.random(in: .min ... .max, using: &self) })
    }
}

/// The seed a seeded test runs with: `$name` when set (to replay a failure), else `fallback`.
public func testSeed(_ name: String, default fallback: UInt64) -> UInt64 {
    UInt64(ProcessInfo.processInfo.environment[name] ?? "") ?? fallback
}

/// A count a bounded test runs: `$name` when set (a long run), else `fallback`.
public func testCount(_ name: String, default fallback: Int) -> Int {
    Int(ProcessInfo.processInfo.environment[name] ?? "") ?? fallback
}
