import Foundation
internal import XML

/// A `PROPFIND Depth: 1` answer (a multistatus) read as it arrives, through ``XMLStream``:
/// only the entry being read and the entries found are held, never the answer itself, so
/// a hostile or broken server's listing of any length costs at most ``largestEntryCount``
/// entries. Each entry is its response's href's last segment, percent-decoded, and whether
/// it is a collection.
final class WebDAVListing {
    /// An entry of the listing.
    struct Entry: Equatable {
        let name: String
        let isFolder: Bool
    }

    /// More entries than any folder of bmvault's holds: a device's folder holds one file per
    /// operation it sent (a 20,000-row import is 20,000), `files/` one per book file,
    /// `devices/` one per device. Past it the listing is refused, not read on.
    static let largestEntryCount = 1_000_000
    /// More bytes than a listing of ``largestEntryCount`` entries takes (Nextcloud's are
    /// about 300 bytes each): refused past it, however few entries it names.
    static let largestByteCount = 512 << 20
    /// An href longer than this is no path bmvault wrote (its are under 200 bytes).
    static let largestHref = 8 << 10

    /// The entries read so far, without the folder itself.
    private(set) var entries: [Entry] = []
    /// Why the reading stopped, if it did.
    private(set) var failure: RemoteError?
    private let folderPath: Substring
    private let entryLimit: Int
    private lazy var stream = XMLStream { [unowned self] event in handle(event) }
    private var bytesRead = 0
    private var responses = 0

    /// Where the reading is: the open elements that matter (a DAV: element's name, or nil
    /// for any other), the current response's first href and whether it is a collection.
    private var open: [String?] = []
    private var href: [UInt8] = []
    private var hrefEnded = false
    private var isFolder = false

    /// `folder` is the URL listed (ending in `/`), whose own entry is left out; `entryLimit`
    /// is ``largestEntryCount`` but in tests.
    init(folder: String, entryLimit: Int = largestEntryCount) {
        folderPath = (URLComponents(string: folder)?.percentEncodedPath ?? folder).trimmingSuffix("/")
        self.entryLimit = entryLimit
    }

    /// Reads the next chunk of the answer; false when the listing was refused (``failure``
    /// says why) and nothing more should be read.
    func read(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard failure == nil else { return false }
        bytesRead += bytes.count
        guard bytesRead <= Self.largestByteCount else { return refuse(.listingTooLarge) }
        do { try stream.read(bytes) } catch { return refuse(Self.malformed) }
        return failure == nil
    }

    /// The entries, once the whole answer was read; throws why it was refused.
    func finish() throws(RemoteError) -> [Entry] {
        if let failure { throw failure }
        do { try stream.finish() } catch { throw Self.malformed }
        return entries
    }

    private static let malformed = RemoteError.malformed(what: "a listing that is not WebDAV's")

    private func refuse(_ error: RemoteError) -> Bool {
        failure = error
        return false
    }

    private func handle(_ event: XMLStream.Event) -> Bool {
        switch event {
        case .start(let namespace, let name):
            let element = namespace == "DAV:" ? name : nil
            switch (open.count, element) {
            case (0, let root): guard root == "multistatus" else { return refuse(Self.malformed) }
            case (1, "response"):
                href = []
                hrefEnded = false
                isFolder = false
            case (5, "collection") where open[1...].elementsEqual(["response", "propstat", "prop", "resourcetype"]):
                isFolder = true
            default: break
            }
            open.append(element)
        case .text(let bytes):
            // The first href's own text, directly inside it.
            guard open.count == 3, open[1] == "response", open[2] == "href", !hrefEnded else { return true }
            guard href.count + bytes.count <= Self.largestHref else { return refuse(Self.malformed) }
            href.append(contentsOf: bytes)
        case .end:
            let element = open.removeLast()
            if open.count == 2, element == "href", open[1] == "response" { hrefEnded = true }
            if open.count == 1, element == "response" {
                responses += 1
                // One response more than the entries: the folder's own.
                guard responses <= entryLimit + 1 else { return refuse(.listingTooLarge) }
                if let entry = entry() { entries.append(entry) }
            }
        }
        return true
    }

    /// The entry the response just read names, if any: nil for the folder itself, a response
    /// without an href, and a name that does not percent-decode. A listing names every
    /// operation file of a device, so each entry costs a few scans of its own bytes:
    /// Foundation's URL parser only for an href that is a full URL, its percent-decoding only
    /// for a name that has a `%`.
    private func entry() -> Entry? {
        let href = String(decoding: href, as: UTF8.self).trimmingXMLWhitespace()
        guard !href.isEmpty else { return nil }
        // An href is a path or a full URL; either way its path names the entry.
        let path = href.hasPrefix("/") ? href : URLComponents(string: href)?.percentEncodedPath ?? href
        guard path.trimmingSuffix("/") != folderPath, let last = path.split(separator: "/").last,
              let name = last.contains("%") ? String(last).removingPercentEncoding : String(last) else { return nil }
        return Entry(name: name, isFolder: isFolder)
    }
}

private extension String {
    func trimmingSuffix(_ suffix: String) -> Substring {
        hasSuffix(suffix) ? dropLast(suffix.count) : Substring(self)
    }

    /// Without the spaces, tabs and line ends XML allows around an element's text.
    func trimmingXMLWhitespace() -> String {
        let isWhitespace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        guard let first = utf8.firstIndex(where: { !isWhitespace($0) }),
              let last = utf8.lastIndex(where: { !isWhitespace($0) }) else { return "" }
        return String(self[first...last])
    }
}
