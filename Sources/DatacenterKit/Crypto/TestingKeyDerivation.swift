/// The tests' key derivation: in a debug build, `DATACENTER_TEST_KDF_ITER=N` makes N the
/// PBKDF2 iteration count that stands for SQLCipher 4's 256,000, in the defaults a new file
/// is written with and in every set of settings detection tries. A passphrase then costs a
/// fraction of a millisecond instead of about a tenth of a second, which was a third of
/// the test suite's time (`make test` sets it; the reference SQLCipher the tests run is
/// given the same count with `PRAGMA cipher_default_kdf_iter`).
///
/// Release builds do not contain it: there the count is always SQLCipher's. Tests about the
/// derivation itself, and those proving that files written with SQLCipher's real defaults
/// open with the key alone, run without it.
enum TestingKeyDerivation {
    /// The environment variable that sets the count.
    static let variable = "DATACENTER_TEST_KDF_ITER"

    /// The count standing for 256,000, or nil when not set (always nil in a release build).
    static let iterations: Int? = {
        #if DEBUG
        guard let text = ProcessEnvironment.value(variable), let count = Int(text), count >= 1 else { return nil }
        return count
        #else
        return nil
        #endif
    }()

    /// `count`, or the tests' count when `count` is SQLCipher 4's 256,000 and one is set.
    static func iterations(standingFor count: Int) -> Int {
        count == 256_000 ? iterations ?? count : count
    }
}
