import Foundation
import Testing

@testable import BMCLI

/// The cold-start-stale failure of offline-first apps as a structural gate, beside the other four in
/// Tests/SyncTests/StructuralGateTests.swift but here, where the real command table can be
/// asked. Like them, it proves the mechanism is present (the end-to-end tests show that it
/// works) and fails the day someone removes it.
@Suite struct FreshReadsGateTests {
    static let readCommands = ["list", "search", "show"]

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()   // BMCLITests
        .deletingLastPathComponent()   // Tests
        .deletingLastPathComponent()   // the package

    // cold-start-stale: reads state their freshness. Each of list, search and show takes
    // --fresh (the command table declares it, and decoding sets the command's `fresh` from
    // it), and opens the vault only through `CommandContext.openVaultForReading(fresh:)`,
    // handing it that flag, never through `openVault()`.
    @Test func readsStateTheirFreshness() throws {
        let commandContext = CommandContext(environment: [:])
        let root = CommandTable.root(commandContext)
        for name in Self.readCommands {
            let command = try #require(root.subcommands.first { $0.name == name }, "\(name)")
            #expect(command.options.contains(SharedOptions.fresh), "\(name) takes --fresh")
        }

        let now = commandContext.clock.now()
        func decodesFresh<Input: CommandInput>(_ parameters: [Parameter<Input>], arguments: [String: [String]] = [:],
                                               into fresh: KeyPath<Input, Bool>) throws -> Bool {
            let given = try Input.decode(Invocation(commandPath: [], arguments: arguments, flags: ["fresh"]), with: parameters, now: now)
            let absent = try Input.decode(Invocation(commandPath: [], arguments: arguments), with: parameters, now: now)
            return given[keyPath: fresh] && !absent[keyPath: fresh]
        }
        #expect(try decodesFresh(ReadCommands.ListInput.parameters, into: \.fresh), "list")
        #expect(try decodesFresh(ReadCommands.SearchInput.parameters, arguments: ["query": ["q"]], into: \.fresh), "search")
        #expect(try decodesFresh(ReadCommands.ShowInput.parameters, arguments: ["id": ["0123"]], into: \.fresh), "show")

        let context = try Self.source("Sources/BMCLI/Support/CommandContext.swift")
        #expect(context.contains("func openVaultForReading(fresh: Bool)"))
        let read = try Self.source("Sources/BMCLI/Commands/ReadCommands.swift")
        let statesFreshness = try Regex(#"\.openVaultForReading\(fresh: \w+\.fresh\)"#)
        for name in Self.readCommands {
            let command = try #require(Self.commandSpec(named: name, in: read), "\(name) is built in ReadCommands.swift")
            #expect(command.contains(statesFreshness), "\(name) says which read it wants")
            #expect(!command.contains("openVault()"), "\(name) reads only through the freshness-stating path")
        }
    }

    static func source(_ relative: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(relative), encoding: .utf8)
    }

    /// The text of the `CommandSpec(name: "<name>", ...)` expression, its `run` included:
    /// from the line that opens it to the next line that closes at that line's indentation.
    static func commandSpec(named name: String, in text: String) -> String? {
        let lines = text.components(separatedBy: "\n")
        guard var start = lines.firstIndex(where: { $0.contains("name: \"\(name)\"") }) else { return nil }
        if !lines[start].contains("CommandSpec(") {
            guard start > 0, lines[start - 1].hasSuffix("CommandSpec(") else { return nil }
            start -= 1
        }
        let indent = String(lines[start].prefix { $0 == " " })
        guard let end = lines[(start + 1)...].firstIndex(where: { $0.hasPrefix(indent + "}") }) else { return nil }
        return lines[start...end].joined(separator: "\n")
    }
}
