import Testing
@testable import DatacenterKit

/// Once engaged, the process writes no core and cannot be dumped, so a crash never puts a
/// key it holds into a file.
@Suite struct SecretGuardTests {
    @Test func engagingMakesTheProcessUndumpableWithNoCore() {
        SecretGuard.engage()
        #expect(SecretGuard.isEngaged)
        SecretGuard.engage()   // again: nothing changes, nothing fails
        #expect(SecretGuard.isEngaged)
    }
}
