/// Where a reader stands with a book.
public enum ReadingStatus: String, Sendable, CaseIterable, Codable {
    case wantToRead = "want-to-read"
    case reading
    case finished
    case abandoned
}

/// One change of status: a book wanted, started, finished or abandoned on a day. Every
/// event is kept, so a re-read keeps each finish date.
public struct ReadingEvent: Hashable, Sendable {
    public let status: ReadingStatus
    /// When it happened, as the reader gave it (a day's local midnight, or a moment).
    public let on: Timestamp
    /// When it was recorded: its identity across devices (a clock reading names one device
    /// and one moment), and the tie-break between events on the same day.
    public let clock: HybridTimestamp
    /// False for a change another program recorded without its day (a Goodreads book on the
    /// read shelf without a Date Read): `on` then only places it among the others (the day
    /// the book was shelved), and is never shown or counted as the day it happened.
    public let dayKnown: Bool

    public init(status: ReadingStatus, on: Timestamp, clock: HybridTimestamp, dayKnown: Bool = true) {
        self.status = status
        self.on = on
        self.clock = clock
        self.dayKnown = dayKnown
    }
}

/// Every status change of a book, oldest first. Two devices' logs merge by union
/// (``ReadingLogPolicy``), so no recorded start, finish or abandonment is lost; the status
/// is that of the latest event by its day, then by when it was recorded.
public struct ReadingLog: Hashable, Sendable {
    public private(set) var events: [ReadingEvent]

    public static let empty = ReadingLog(events: [])

    public init(events: [ReadingEvent]) {
        self.events = Self.ordered(Array(Set(events)))
    }

    public var isEmpty: Bool { events.isEmpty }

    /// The status now: the latest event's; nil for a book with none.
    public var status: ReadingStatus? { events.last?.status }

    /// When the current status began; nil when that day is not known.
    public var statusSince: Timestamp? { events.last.flatMap { $0.dayKnown ? $0.on : nil } }

    /// Every day the book was finished, oldest first (a re-read adds one); a finish whose day
    /// is not known is left out (``finishes`` counts it).
    public var finishedOn: [Timestamp] { events.filter { $0.status == .finished && $0.dayKnown }.map(\.on) }

    /// How many times the book was finished, whether the day is known or not.
    public var finishes: Int { events.filter { $0.status == .finished }.count }

    /// Whether the log has `event` already, as an import sees it: a change to the same status
    /// on the same day, or at all when either day is not known (an import's day is a guess;
    /// a re-import never records its status twice).
    public func holds(_ event: ReadingEvent) -> Bool {
        events.contains { $0.status == event.status && (!event.dayKnown || !$0.dayKnown || $0.on == event.on) }
    }

    /// This log with `event` added.
    public func adding(_ event: ReadingEvent) -> ReadingLog {
        ReadingLog(events: events + [event])
    }

    /// Both logs' events.
    public func union(_ other: ReadingLog) -> ReadingLog {
        ReadingLog(events: events + other.events)
    }

    private static func ordered(_ events: [ReadingEvent]) -> [ReadingEvent] {
        events.sorted { ($0.on, $0.clock) < ($1.on, $1.clock) }
    }

    // MARK: - Text

    /// The log as stored and sent: one event per line, `status day-or-moment clock`, e.g.
    /// `finished 1796457600000 0001a2b3c4d5-0000-device`; a day not known is written with a
    /// `~` before it (bmvault 0.16). Empty for no events.
    public var text: String {
        // Appended piece by piece: written for every book an import adds, where interpolation
        // cost more than the rest of the line.
        var text = ""
        for (index, event) in events.enumerated() {
            if index > 0 { text += "\n" }
            text += event.status.rawValue
            text += event.dayKnown ? " " : " ~"
            text += String(event.on.millisecondsSince1970)
            text += " "
            text += event.clock.description
        }
        return text
    }

    /// Reads ``text``; `invalidReadingLog` for anything else.
    public init(parsing text: String) throws(JournalError) {
        var events: [ReadingEvent] = []
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: false)
            guard parts.count == 3, let status = ReadingStatus(rawValue: String(parts[0])) else { throw .invalidReadingLog }
            let dayKnown = !parts[1].hasPrefix("~")
            guard let milliseconds = Int64(dayKnown ? parts[1] : parts[1].dropFirst()),
                  let clock = try? HybridTimestamp(parsing: String(parts[2])) else {
                throw .invalidReadingLog
            }
            events.append(ReadingEvent(status: status, on: Timestamp(millisecondsSince1970: milliseconds), clock: clock, dayKnown: dayKnown))
        }
        self.init(events: events)
    }
}

/// A book's rating: 1 to 5 stars, in half stars.
public enum Rating {
    public static let range: ClosedRange<Double> = 1...5

    /// `stars` checked: 1 to 5, a whole or half number.
    public static func checked(_ stars: Double) throws(JournalError) -> Double {
        guard stars.isFinite, range.contains(stars), (stars * 2).rounded() == stars * 2 else { throw .ratingOutOfRange }
        return stars
    }
}
