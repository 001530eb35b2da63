import Foundation
import Testing

/// Issue 48: the suite passes on a fresh Debian 12 machine only if `Scripts/install` brings
/// every program the tests run. This lists them (found in the tests' sources, plus the ones
/// named inside shell command lines) and fails for any that comes from a package the script
/// does not install, unless every Debian system has it (an Essential package).
@Suite struct TestProgramsTests {
    /// Programs the tests run by name, where no scan can see them: inside `sh -c` command
    /// lines, and in the scripts that run the suite (`Scripts/test`, `Scripts/with-keyring`).
    static let runThroughAShell = ["zip", "script", "sleep", "sha256sum", "cat", "gnome-keyring-daemon", "dbus-daemon",
                                   "pgrep", "mktemp", "python3"]

    @Test func everyProgramTheTestsRunComesFromAPackageScriptsInstallInstalls() throws {
        let programs = try Self.programsInTestSources().union(Self.runThroughAShell)
        // The scan sees programs run by absolute path and through the BookFilesTests' `run`.
        #expect(programs.isSuperset(of: ["unzip", "sqlite3", "lighttpd", "qpdf", "mkfs.exfat"]), "the scan missed programs: \(programs.sorted())")

        let installed = try Self.installedByScript()
        let owners = try Self.owningPackages(of: programs)
        let essential = try Self.essentialPackages(among: Set(owners.values))
        for program in programs.sorted() {
            guard let package = owners[program] else {
                Issue.record("\(program) is run by the tests, but no Debian package on this machine has it: add its package to Scripts/install")
                continue
            }
            #expect(installed.contains(package) || essential.contains(package),
                    "\(program) comes from the package \(package), which Scripts/install does not install")
        }
    }

    /// Every program named in the tests' Swift sources by absolute path (`/usr/bin/unzip`,
    /// also inside a command line), or run through the PATH with `run("zip", ...)`.
    static func programsInTestSources() throws -> Set<String> {
        let absolute = try Regex(#"(?:^|[\s"'])/(?:usr/)?s?bin/([A-Za-z0-9._+-]+)"#)
        let byName = try Regex(#"(?:^|[^.\w])run\("([a-z][a-z0-9.+-]*)","#)
        var programs: Set<String> = []
        let tests = Repository.root.appendingPathComponent("Tests")
        let files = FileManager.default.enumerator(atPath: tests.path)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: tests.appendingPathComponent(file), encoding: .utf8)
            for match in text.matches(of: absolute) + text.matches(of: byName) {
                if let name = match.output[1].substring { programs.insert(String(name)) }
            }
        }
        return programs
    }

    /// The packages in `Scripts/install`'s `packages=( ... )` list.
    static func installedByScript() throws -> Set<String> {
        let script = try String(contentsOf: Repository.root.appendingPathComponent("Scripts/install"), encoding: .utf8)
        let start = try #require(script.range(of: "\npackages=(\n"))
        let end = try #require(script.range(of: "\n)\n", range: start.upperBound..<script.endIndex))
        return Set(script[start.upperBound..<end.lowerBound].split(whereSeparator: \.isWhitespace).map(String.init))
    }

    /// The package that installed each program, as dpkg records it (under `/usr/bin`,
    /// `/bin`, `/usr/sbin` or `/sbin`: Debian 12's database still says `/bin` for most of
    /// the essential ones).
    static func owningPackages(of programs: Set<String>) throws -> [String: String] {
        let directories = ["/usr/bin/", "/bin/", "/usr/sbin/", "/sbin/"]
        let paths = programs.flatMap { program in directories.map { $0 + program } }
        let found = try Binary.run("/usr/bin/dpkg-query", ["-S"] + paths, environment: ["PATH": "/usr/bin:/bin"])
        var owners: [String: String] = [:]
        for line in found.stdout.split(separator: "\n") where !line.hasPrefix("diversion by ") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, let program = parts[1].split(separator: "/").last else { continue }
            let package = parts[0].split(separator: ",").first.map { $0.split(separator: ":").first ?? $0 } ?? parts[0]
            owners[String(program)] = package.trimmingCharacters(in: .whitespaces)
        }
        return owners
    }

    static func essentialPackages(among packages: Set<String>) throws -> Set<String> {
        let query = try Binary.run("/usr/bin/dpkg-query", ["-W", "-f=${Package} ${Essential}\n"] + packages.sorted(),
                                   environment: ["PATH": "/usr/bin:/bin"])
        return Set(query.stdout.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            return fields.count == 2 && fields[1] == "yes" ? String(fields[0]) : nil
        })
    }
}
