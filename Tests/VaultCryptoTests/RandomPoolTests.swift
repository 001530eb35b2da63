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
        // 4 KiB of random bytes hold nearly all 256 byte values (fewer than 200 is
        // astronomically unlikely); a block left unfilled holds one.
        #expect(Set(bytes[(2 * RandomPool.blockCount - 4096)..<(2 * RandomPool.blockCount)]).count > 200)
    }

    @Test func numbersForIdsDiffer() {
        let pool = RandomPool()
        let numbers = (0..<2000).map { _ in pool.next() }
        #expect(Set(numbers).count == numbers.count)
    }
}
