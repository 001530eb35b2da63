import Foundation
import Testing
@testable import Telemetry

/// `Sensitive<T>`: every way Swift turns a value into text gives `<redacted>`, and the
/// value itself never shows.
@Suite struct SensitiveTests {
    private struct Holder {
        let id = 7
        let title: Sensitive<String>
    }

    private enum Failure: Error {
        case unreadable(title: Sensitive<String>)
    }

    @Test func descriptionAndDebugDescriptionAreRedacted() {
        let secret = makeCanary()
        let sensitive = Sensitive(secret)
        #expect(sensitive.description == "<redacted>")
        #expect(sensitive.debugDescription == "<redacted>")
        #expect(String(describing: sensitive) == "<redacted>")
        #expect(String(reflecting: sensitive) == "<redacted>")
        // The value is still there for code that needs it.
        #expect(sensitive.value == secret)
    }

    @Test func stringInterpolationIsRedacted() {
        let secret = makeCanary()
        let sensitive = Sensitive(secret)
        #expect("title: \(sensitive)" == "title: <redacted>")
        // Wrapped: an optional, an array, a tuple, a dictionary, a struct, an error.
        let optional: Sensitive<String>? = sensitive
        let texts = [
            "\(optional as Any)", "\([sensitive])", "\((1, sensitive))", "\(["k": sensitive])",
            "\(Holder(title: sensitive))", "\(Failure.unreadable(title: sensitive))",
            String(describing: Failure.unreadable(title: sensitive)), String(reflecting: Holder(title: sensitive)),
        ]
        for text in texts {
            #expect(!text.contains(secret), "\(text)")
            #expect(text.contains("<redacted>"), "\(text)")
        }
    }

    @Test func reflectionShowsNoValue() {
        let secret = makeCanary()
        let sensitive = Sensitive(secret)
        #expect(Mirror(reflecting: sensitive).children.isEmpty)
        // Reflecting a container reaches the wrapper, whose mirror has nothing inside.
        let holder = Mirror(reflecting: Holder(title: sensitive))
        let title = holder.children.first { $0.label == "title" }?.value
        #expect(title != nil)
        #expect(title.map { Mirror(reflecting: $0).children.isEmpty } == true)
        #expect(title.map { String(describing: $0) } == "<redacted>")

        var dumped = ""
        dump(sensitive, to: &dumped)
        #expect(!dumped.contains(secret), "\(dumped)")
        #expect(dumped.contains("<redacted>"), "\(dumped)")
        dumped = ""
        dump(Holder(title: sensitive), to: &dumped)
        #expect(!dumped.contains(secret), "\(dumped)")
        dumped = ""
        dump([Failure.unreadable(title: sensitive)], to: &dumped)
        #expect(!dumped.contains(secret), "\(dumped)")
    }

    @Test func otherValueTypesAreRedactedToo() {
        let bytes = Sensitive(Array("BMV-CANARY-bytes".utf8))
        #expect("\(bytes)" == "<redacted>")
        #expect(String(reflecting: bytes) == "<redacted>")
        let number = Sensitive(424_242)
        #expect(!String(describing: number).contains("424242"))
        var dumped = ""
        dump(number, to: &dumped)
        #expect(!dumped.contains("424242"), "\(dumped)")
    }

    @Test func aPrivateLogValueDescribesItselfWithoutTheText() {
        let secret = makeCanary()
        let value = LogValue.text(secret)
        #expect(!"\(value)".contains(secret))
        #expect(!String(reflecting: value).contains(secret))
        var dumped = ""
        dump(value, to: &dumped)
        #expect(!dumped.contains(secret), "\(dumped)")
        // Public text is public: the contrast that shows the check above can fail.
        #expect("\(LogValue.public(secret))".contains(secret))
    }
}
