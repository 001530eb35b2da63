import Foundation
import XML

/// An EPUB's metadata: `mimetype`, then `META-INF/container.xml`, which names the package
/// document (the OPF), whose `<metadata>` holds it. No other member is read: not a chapter,
/// not the cover image.
enum EPUBReader {
    /// The most bytes of container.xml or the package document read: real ones are a few
    /// kilobytes, a big book's a few hundred.
    static let documentLimit = 4 << 20

    /// The metadata of the zip archive at `path`, or nil when it is a zip archive but no EPUB
    /// (its `mimetype` member is missing or says something else).
    static func read(path: String) throws(BookFileError) -> BookFileMetadata? {
        let archive = try ZipArchive(path: path)
        guard let mimetype = archive.member(named: "mimetype") else { return nil }
        guard let type = try archive.read(mimetype, limit: 255),
              String(decoding: type, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "application/epub+zip" else {
            return nil
        }

        guard let container = archive.member(named: "META-INF/container.xml") else {
            throw .damaged(.epub, because: "it has no META-INF/container.xml")
        }
        guard let containerBytes = try archive.read(container, limit: documentLimit) else {
            throw .damaged(.epub, because: "its container.xml is larger than bmvault reads")
        }
        guard let containerRoot = try? XMLElement.parse(containerBytes) else {
            throw .damaged(.epub, because: "its container.xml is not well-formed XML")
        }
        guard let packagePath = packagePath(containerRoot), let package = packageMember(packagePath, in: archive) else {
            throw .damaged(.epub, because: "its container.xml names no package document in the archive")
        }
        guard let packageBytes = try archive.read(package, limit: documentLimit) else {
            throw .damaged(.epub, because: "its package document is larger than bmvault reads")
        }
        guard let packageRoot = try? XMLElement.parse(packageBytes) else {
            throw .damaged(.epub, because: "its package document is not well-formed XML")
        }
        guard packageRoot.name == "package" else { throw .damaged(.epub, because: "its package document has no package element") }
        return PackageDocument.metadata(packageRoot)
    }

    /// The `full-path` of the first rootfile that is a package document (by its media type,
    /// else the first rootfile at all).
    private static func packagePath(_ container: XMLElement) -> String? {
        let rootfiles = container.children.filter { $0.name == "rootfiles" }.flatMap { $0.children.filter { $0.name == "rootfile" } }
        let package = rootfiles.first { $0.attribute(nil, "media-type") == "application/oebps-package+xml" } ?? rootfiles.first
        return package?.attribute(nil, "full-path")
    }

    /// The member a rootfile's `full-path` names: relative to the archive's root (a leading
    /// slash some writers put is dropped), as written, else percent-decoded.
    private static func packageMember(_ path: String, in archive: borrowing ZipArchive) -> UInt64? {
        let path = path.hasPrefix("/") ? String(path.drop { $0 == "/" }) : path
        guard !path.isEmpty else { return nil }
        if let member = archive.member(named: path) { return member }
        return path.removingPercentEncoding.flatMap { archive.member(named: $0) }
    }
}
