import Testing
import Journal
@testable import Sync

/// Operation file names carry the clock (so they sort in clock order) and the idempotency
/// key (so a second upload of one operation lands on the same name).
@Suite struct OperationFileNameTests {
    @Test func aNameSortsByClockAndYieldsItsKey() throws {
        let early = HybridTimestamp(wallMilliseconds: 1_000, counter: 0, deviceID: "aaaa")
        let late = HybridTimestamp(wallMilliseconds: 2_000, counter: 0, deviceID: "aaaa")
        let first = OperationFile.name(clock: early, idempotencyKey: "01a2-key-one")
        let second = OperationFile.name(clock: late, idempotencyKey: "01a2-key-two")
        #expect(first < second)
        #expect(OperationFile.idempotencyKey(inName: first) == "01a2-key-one")
        #expect(OperationFile.idempotencyKey(inName: "not an operation.txt") == nil)
        #expect(OperationFile.idempotencyKey(inName: ".tmp-123") == nil)
    }
}
