import Testing
import HTTP

/// Issue 40: plain HTTP only to this machine, decided from the address or the exact name
/// `localhost`, never from how a name begins.
@Suite struct ThisMachineTests {
    @Test(arguments: ["localhost", "LocalHost", "127.0.0.1", "127.0.0.2", "127.255.255.254", "::1", "[::1]",
                      "0:0:0:0:0:0:0:1", "[0000:0000:0000:0000:0000:0000:0000:0001]"])
    func thisMachine(host: String) {
        #expect(ThisMachine.isLoopback(host: host))
    }

    @Test(arguments: ["127.0.0.1.nip.io", "127.evil.example", "localhost.example", "localhost.", "127.1", "0x7f.0.0.1",
                      "0177.0.0.1", "128.0.0.1", "126.255.255.255", "10.0.0.1", "::2", "[::ffff:127.0.0.1]", "example.org", ""])
    func anotherMachine(host: String) {
        #expect(!ThisMachine.isLoopback(host: host))
    }
}
