import Testing
@testable import BMCLI

/// `BMVAULT_PASSPHRASE_COMMAND` is split into words as a POSIX shell would, without a shell
/// and without expanding anything.
@Suite struct PassphraseCommandTests {
    @Test(arguments: [
        ("pass show bmvault", ["pass", "show", "bmvault"]),
        ("  secret-tool   lookup  app bmvault ", ["secret-tool", "lookup", "app", "bmvault"]),
        ("sh -c 'echo $HOME; cat'", ["sh", "-c", "echo $HOME; cat"]),
        (#"printf '%s\n' "a \"quoted\" word""#, ["printf", #"%s\n"#, #"a "quoted" word"#]),
        (#"gpg -d ~/pass\ phrase.gpg"#, ["gpg", "-d", "~/pass phrase.gpg"]),
        (#""C:\path" 'it''s'"#, [#"C:\path"#, "its"]),
        (#""\$HOME \\ \`x\`""#, [#"$HOME \ `x`"#]),
        ("''", [""]),
    ])
    func wordsAreSplitAsAShellWould(command: String, words: [String]) throws {
        #expect(try PassphraseCommand.words(command) == words)
    }

    @Test(arguments: ["'unterminated", "\"unterminated", "trailing\\"])
    func anUnfinishedQuoteOrEscapeIsRefused(command: String) {
        #expect(throws: CLIError.passphraseCommandInvalid) { try PassphraseCommand.words(command) }
    }
}
