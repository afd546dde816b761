import Foundation
import Testing
import DatacenterKit

/// `ProcessEnvironment.value` reads what `ProcessInfo`'s environment holds. (Read only: a test
/// that set variables would race the suite's other threads reading the environment and
/// spawning processes with it. The CLI tests run commands with `DATACENTER_KEY`,
/// `DATACENTER_DB_KEY` and `DATACENTER_ROOT` set.)
@Suite struct ProcessEnvironmentTests {
    @Test func readsWhatTheProcessEnvironmentHolds() {
        let environment = ProcessInfo.processInfo.environment
        #expect(!environment.isEmpty)
        for name in environment.keys.sorted().prefix(50) {
            #expect(ProcessEnvironment.value(name) == environment[name], "\(name)")
        }
    }

    @Test func anUnsetVariableIsNil() {
        let name = "DATACENTER_TEST_UNSET_\(UUID().uuidString.replacingOccurrences(of: "-", with: "_"))"
        #expect(ProcessInfo.processInfo.environment[name] == nil)
        #expect(ProcessEnvironment.value(name) == nil)
    }
}
