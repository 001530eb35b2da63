import Foundation
import Testing
@testable import Keystore

/// D-Bus error names → KeystoreError, by name only; and the deadline that cancels libsecret.
@Suite struct ErrorMappingTests {
    @Test(arguments: ["org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
                      "org.freedesktop.DBus.Error.Spawn.ExecFailed", "org.freedesktop.DBus.Error.Spawn.ChildExited"])
    func noOwnerOrFailedActivationMeansNoProvider(name: String) {
        #expect(GLibFailure.classify(remoteName: name, timeoutMilliseconds: 700) == .noProvider)
    }

    @Test(arguments: ["org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.Timeout", "org.freedesktop.DBus.Error.TimedOut"])
    func theBusGivingUpIsATimeoutOfOurBudget(name: String) {
        #expect(GLibFailure.classify(remoteName: name, timeoutMilliseconds: 700) == .timedOut(milliseconds: 700))
    }

    @Test func secretServiceIsLockedMeansKeyringLocked() {
        #expect(GLibFailure.classify(remoteName: "org.freedesktop.Secret.Error.IsLocked", timeoutMilliseconds: 1) == .keyringLocked)
    }

    @Test func otherErrorsKeepTheirName() {
        #expect(GLibFailure.classify(remoteName: "org.freedesktop.DBus.Error.AccessDenied", timeoutMilliseconds: 1)
                == .failure(domain: "org.freedesktop.DBus.Error.AccessDenied", code: 0))
        #expect(GLibFailure.classify(remoteName: "org.freedesktop.Secret.Error.NoSuchObject", timeoutMilliseconds: 1)
                == .failure(domain: "org.freedesktop.Secret.Error.NoSuchObject", code: 0))
    }

    @Test(arguments: ["", "has space", "quote\"d.x", String(repeating: "a.", count: 128), "caf\u{E9}.Error", "NoDots"])
    func aNameThatIsNotANameIsNotRepeated(name: String) {
        // A hostile provider must not get arbitrary text into our error messages.
        #expect(GLibFailure.classify(remoteName: name, timeoutMilliseconds: 1) == .failure(domain: "bmvault-malformed-error-name", code: 0))
    }

    @Test func aDeadlineExpiresAfterItsTimeoutAndNotBefore() {
        let short = Deadline(timeoutMilliseconds: 20)
        let long = Deadline(timeoutMilliseconds: 60_000)
        let expired = (0..<200).contains { _ in
            if short.hasExpired { return true }
            usleep(10_000)
            return false
        }
        #expect(expired)
        #expect(!long.hasExpired)
    }
}
