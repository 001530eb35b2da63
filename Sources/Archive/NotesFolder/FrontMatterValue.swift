internal import CYAML

/// The value of one front-matter entry as a list of strings, read by libyaml: a scalar in
/// any YAML style (plain, quoted, folded over lines, a block scalar) is one item, a list of
/// scalars its items, no value (`key:`, `~`, `null`, `[]`) none. Enough to tell whether a
/// property the reader's notes app rewrote (Obsidian's property editor spells values its
/// own way) still has the value bmvault wrote; anything else (a mapping, a nested list, an
/// alias, YAML that does not parse) reads as nil, which counts as an edit.
enum FrontMatterValue {
    /// The items of the entry whose text (its lines: one key and its value) is `entry`.
    static func items(_ entry: String) -> [String]? {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { return nil }
        defer { yaml_parser_delete(&parser) }
        var bytes = Array(entry.utf8)
        return bytes.withUnsafeMutableBufferPointer { buffer -> [String]? in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return nil }
            yaml_parser_set_input_string(&parser, base, buffer.count)
            var events = EventReader(parser: &parser)
            guard events.next() == .other(YAML_STREAM_START_EVENT), events.next() == .other(YAML_DOCUMENT_START_EVENT),
                  events.next() == .other(YAML_MAPPING_START_EVENT), case .scalar(_)? = events.next() else { return nil }
            var items: [String] = []
            switch events.next() {
            case .scalar(let value)?:
                if let value { items = [value] }
            case .other(YAML_SEQUENCE_START_EVENT)?:
                items: while true {
                    switch events.next() {
                    case .scalar(let value)?: if let value { items.append(value) }
                    case .other(YAML_SEQUENCE_END_EVENT)?: break items
                    default: return nil
                    }
                }
            default:
                return nil
            }
            guard events.next() == .other(YAML_MAPPING_END_EVENT), events.next() == .other(YAML_DOCUMENT_END_EVENT),
                  events.next() == .other(YAML_STREAM_END_EVENT) else { return nil }
            return items
        }
    }

    /// One event of libyaml's parser, as far as a value is concerned.
    enum Event: Equatable {
        /// A scalar's text; nil for YAML's null (an empty or `~`/`null` plain scalar).
        case scalar(String?)
        case other(yaml_event_type_t)
    }

    /// The parser's events one at a time; nil once it fails.
    struct EventReader {
        let parser: UnsafeMutablePointer<yaml_parser_t>

        init(parser: UnsafeMutablePointer<yaml_parser_t>) {
            self.parser = parser
        }

        mutating func next() -> Event? {
            var event = yaml_event_t()
            guard yaml_parser_parse(parser, &event) == 1 else { return nil }
            defer { yaml_event_delete(&event) }
            if event.type == YAML_SCALAR_EVENT {
                let scalar = event.data.scalar
                let text = scalar.value.map { String(decoding: UnsafeBufferPointer(start: $0, count: Int(scalar.length)), as: UTF8.self) } ?? ""
                let isNull = scalar.style == YAML_PLAIN_SCALAR_STYLE && ["", "~", "null", "Null", "NULL"].contains(text)
                return .scalar(isNull ? nil : text)
            }
            return .other(event.type)
        }
    }
}
