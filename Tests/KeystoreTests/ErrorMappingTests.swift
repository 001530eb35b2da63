import Testing
@testable import Keystore

/// GError → KeystoreError, by domain and code only.
@Suite struct ErrorMappingTests {
    let budget: OperationBudget

    init() throws {
        budget = try OperationBudget(timeoutMilliseconds: 60_000)
    }

    @Test func ioErrorWhileConnectingMeansNoSessionBus() {
        #expect(budget.mapError(domainName: "g-io-error-quark", code: 1, stage: .connect) == .noSessionBus)
        #expect(budget.mapError(domainName: "g-io-error-quark", code: 0, stage: .connect) == .noSessionBus)
    }

    @Test func ioErrorLaterIsAPlainFailure() {
        #expect(budget.mapError(domainName: "g-io-error-quark", code: 1, stage: .operation)
                == .failure(domain: "g-io-error-quark", code: 1))
    }

    @Test func cancelledOrTimedOutIoErrorIsATimeout() {
        // G_IO_ERROR_CANCELLED = 19, G_IO_ERROR_TIMED_OUT = 24.
        #expect(budget.mapError(domainName: "g-io-error-quark", code: 19, stage: .connect) == .timedOut(milliseconds: 60_000))
        #expect(budget.mapError(domainName: "g-io-error-quark", code: 24, stage: .operation) == .timedOut(milliseconds: 60_000))
    }

    @Test func serviceUnknownMeansNoProvider() {
        #expect(budget.mapError(domainName: "g-dbus-error-quark", code: 2, stage: .connect) == .noProvider)
        #expect(budget.mapError(domainName: "g-dbus-error-quark", code: 2, stage: .operation) == .noProvider)
    }

    @Test func dbusNoReplyIsATimeout() {
        // G_DBUS_ERROR_NO_REPLY = 4: GDBus's own 25 s reply timeout.
        #expect(budget.mapError(domainName: "g-dbus-error-quark", code: 4, stage: .operation) == .timedOut(milliseconds: 60_000))
    }

    @Test func otherDBusErrorsKeepDomainAndCode() {
        // 9 = G_DBUS_ERROR_ACCESS_DENIED
        #expect(budget.mapError(domainName: "g-dbus-error-quark", code: 9, stage: .operation)
                == .failure(domain: "g-dbus-error-quark", code: 9))
    }

    @Test func secretServiceIsLockedMeansKeyringLocked() {
        #expect(budget.mapError(domainName: "secret-error", code: 2, stage: .operation) == .keyringLocked)
        #expect(budget.mapError(domainName: "secret-error", code: 3, stage: .operation)
                == .failure(domain: "secret-error", code: 3))
    }

    @Test func anythingAfterTheTimerFiredIsATimeout() throws {
        let short = try OperationBudget(timeoutMilliseconds: 1)
        let deadline = ContinuousClock.now + .seconds(5)
        // Wait for the timer thread to cancel (it should take about a millisecond).
        while short.mapError(domainName: "g-dbus-error-quark", code: 9, stage: .operation) != .timedOut(milliseconds: 1),
              ContinuousClock.now < deadline {
            pauseBriefly()
        }
        #expect(short.mapError(domainName: "g-dbus-error-quark", code: 9, stage: .operation) == .timedOut(milliseconds: 1))
        #expect(throws: KeystoreError.timedOut(milliseconds: 1)) {
            try short.run(.operation) { _, _ in false }
        }
    }

    @Test func failureWithoutGErrorBeforeTheTimerIsNotATimeout() {
        #expect(throws: KeystoreError.failure(domain: "bmvault-keystore", code: 0)) {
            try budget.run(.operation) { _, _ in false }
        }
    }
}

private func pauseBriefly() {
    // A short pause without Foundation.
    var request = timespec(tv_sec: 0, tv_nsec: 1_000_000)
    nanosleep(&request, nil)
}

#if canImport(Glibc)
import Glibc
#endif
