import Journal

extension VersionNumber {
    /// The version after `current` of record `id`: a record at the end of ``range`` (only an
    /// archive or a device from before the range was checked could have put it there) fails
    /// with an error, and nothing is written, instead of trapping.
    static func next(after current: Int64, of id: EntityID) throws(StoreError) -> Int64 {
        do {
            return try next(after: current)
        } catch {
            throw .versionExhausted(id: id.rawValue)
        }
    }
}
