import Foundation
import Testing
import DatacenterKit

/// `ProcessEnvironment.value` reads what `ProcessInfo`'s environment holds.
@Suite struct ProcessEnvironmentTests {
    @Test func readsASetVariableAndNothingForAnUnsetOne() {
        let name = "DATACENTER_TEST_ENV_\(getpid())"
        #expect(ProcessEnvironment.value(name) == nil)
        setenv(name, "välue = with spaces", 1)
        defer { unsetenv(name) }
        #expect(ProcessEnvironment.value(name) == "välue = with spaces")
        #expect(ProcessEnvironment.value(name) == ProcessInfo.processInfo.environment[name])
        setenv(name, "", 1)
        #expect(ProcessEnvironment.value(name) == "")
        unsetenv(name)
        #expect(ProcessEnvironment.value(name) == nil)
    }
}
