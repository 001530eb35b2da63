/// When to try a failed upload again: exponential backoff with full jitter,
/// `random(0, min(cap, base · 2^attempt))`, so many devices coming back online together do
/// not retry together.
public struct Backoff: Sendable {
    public let baseMilliseconds: Int64
    public let capMilliseconds: Int64

    public init(baseMilliseconds: Int64 = 2_000, capMilliseconds: Int64 = 3_600_000) {
        self.baseMilliseconds = baseMilliseconds
        self.capMilliseconds = capMilliseconds
    }

    /// The delay before attempt `attempt + 1`, given `attempt` failures so far.
    public func delay(afterAttempt attempt: Int, using generator: inout some RandomNumberGenerator) -> Int64 {
        let shift = min(max(attempt, 0), 40)
        let ceiling = min(capMilliseconds, baseMilliseconds.multipliedReportingOverflow(by: Int64(1) << shift).overflow
                          ? capMilliseconds : baseMilliseconds << shift)
        return Int64.random(in: 0...max(0, ceiling), using: &generator)
    }
}
