import Testing
@testable import Keystore

@Suite struct BusAddressTests {
    @Test func aPathOrAnAbstractNameIsFound() {
        #expect(BusAddress.parse("unix:path=/run/user/1000/bus") == .path("/run/user/1000/bus"))
        #expect(BusAddress.parse("unix:abstract=/tmp/dbus-Ab12,guid=0123456789abcdef") == .abstract("/tmp/dbus-Ab12"))
        #expect(BusAddress.parse("unix:guid=0123,path=/tmp/bus") == .path("/tmp/bus"))
    }

    @Test func theFirstUsableEntryWins() {
        #expect(BusAddress.parse("tcp:host=localhost,port=1234;unix:path=/tmp/a;unix:path=/tmp/b") == .path("/tmp/a"))
    }

    @Test func escapesAreUndone() {
        #expect(BusAddress.parse("unix:path=/tmp/with%20space%2cand%3Dsigns") == .path("/tmp/with space,and=signs"))
    }

    @Test(arguments: ["", "tcp:host=localhost,port=1234", "unix:tmpdir=/tmp", "unix:path=", "unix:path=/tmp/bad%2", "unix:path=/x%zz", "garbage"])
    func nothingUsableIsNil(text: String) {
        #expect(BusAddress.parse(text) == nil)
    }
}
