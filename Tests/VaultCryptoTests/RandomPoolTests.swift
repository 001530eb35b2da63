import Testing
@testable import VaultCrypto

/// The pool hands out every byte of a block once, and draws a new block when one runs out.
@Suite struct RandomPoolTests {
    /// Nonce-sized draws across many blocks: never a repeated nonce, never a run of zeros
    /// (a block that was not filled), and draws that straddle two blocks work.
    @Test func drawsAcrossBlocksNeverRepeat() {
        let pool = RandomPool()
        var seen = Set<[UInt8]>()
        let draws = 3 * RandomPool.blockCount / 24 + 7
        for _ in 0..<draws {
            var nonce = [UInt8](repeating: 0, count: 24)
            nonce.withUnsafeMutableBytes { pool.fill($0) }
            #expect(seen.insert(nonce).inserted, "a nonce came out twice")
        }
        #expect(!seen.contains([UInt8](repeating: 0, count: 24)))
    }

    /// One draw larger than a block takes several refills, and no two blocks are the same.
    @Test func aDrawLargerThanABlockIsFilledThroughout() {
        let pool = RandomPool()
        var bytes = [UInt8](repeating: 0, count: 2 * RandomPool.blockCount + 100)
        bytes.withUnsafeMutableBytes { pool.fill($0) }
        let first = bytes[0..<64], second = bytes[RandomPool.blockCount..<(RandomPool.blockCount + 64)]
        let tail = bytes[(2 * RandomPool.blockCount)..<(2 * RandomPool.blockCount + 64)]
        #expect(first != second && second != tail && first != tail)
        // Two blocks of random bytes hold well over 100 distinct byte values (fewer is
        // astronomically unlikely); blocks left unfilled hold one.
        #expect(Set(bytes[0..<(2 * RandomPool.blockCount)]).count > 100)
    }

    @Test func numbersForIdsDiffer() {
        let pool = RandomPool()
        let numbers = (0..<2000).map { _ in pool.next() }
        #expect(Set(numbers).count == numbers.count)
    }
}
