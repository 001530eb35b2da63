import Testing
@testable import Keystore

/// D-Bus error names → KeystoreError, by name only.
@Suite struct ErrorMappingTests {
    @Test(arguments: ["org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
                      "org.freedesktop.DBus.Error.Spawn.ExecFailed", "org.freedesktop.DBus.Error.Spawn.ChildExited"])
    func noOwnerOrFailedActivationMeansNoProvider(name: String) {
        #expect(BusConnection.error(named: name, timeoutMilliseconds: 700) == .noProvider)
    }

    @Test(arguments: ["org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout", "org.freedesktop.DBus.Error.TimedOut"])
    func theBusGivingUpIsATimeoutOfOurBudget(name: String) {
        #expect(BusConnection.error(named: name, timeoutMilliseconds: 700) == .timedOut(milliseconds: 700))
    }

    @Test func secretServiceIsLockedMeansKeyringLocked() {
        #expect(BusConnection.error(named: "org.freedesktop.Secret.Error.IsLocked", timeoutMilliseconds: 1) == .keyringLocked)
    }

    @Test func otherErrorsKeepTheirName() {
        #expect(BusConnection.error(named: "org.freedesktop.DBus.Error.AccessDenied", timeoutMilliseconds: 1)
                == .failure(domain: "org.freedesktop.DBus.Error.AccessDenied", code: 0))
        #expect(BusConnection.error(named: "org.freedesktop.Secret.Error.NoSuchObject", timeoutMilliseconds: 1)
                == .failure(domain: "org.freedesktop.Secret.Error.NoSuchObject", code: 0))
    }

    @Test(arguments: [nil, "", "has space", "quote\"d", String(repeating: "a", count: 256), "caf\u{E9}.Error"])
    func aNameThatIsNotANameIsNotRepeated(name: String?) {
        // A hostile provider must not get arbitrary text into our error messages.
        #expect(BusConnection.error(named: name, timeoutMilliseconds: 1) == BusProtocolFailure.malformedMessage.error)
    }

    @Test func aDeadlineInThePastTimesOutAndOneInTheFutureDoesNot() throws {
        #expect(throws: KeystoreError.timedOut(milliseconds: 0)) { try Deadline(timeoutMilliseconds: 0).remainingMilliseconds() }
        let remaining = try Deadline(timeoutMilliseconds: 60_000).remainingMilliseconds()
        #expect(remaining > 59_000 && remaining <= 60_000)
    }
}
