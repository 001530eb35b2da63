#if canImport(Glibc)
import Glibc
#endif

/// Runs `call`, a system call that returns -1 and sets `errno` when it fails, and returns
/// its result or throws the failure named `operation`.
///
/// A signal that arrives during a slow call (a read of a pipe, a lock wait) makes it fail
/// with `EINTR` although nothing went wrong; such a call is made again. (`close`, which must
/// not be made twice, is not made through here: ``FileDescriptor/close()``.) In debug
/// builds a fault armed for `operation` (``InjectedFaults``) is thrown instead, and `call`
/// is not made.
public func systemCall<Result: FixedWidthInteger>(_ operation: FileIOError.Operation,
                                                  _ call: () -> Result) throws(FileIOError) -> Result {
    try InjectedFaults.check(operation)
    while true {
        let result = call()
        guard result == -1 else { return result }
        let code = Errno(rawValue: errno)
        guard code == .interrupted else { throw FileIOError(operation, code) }
    }
}

/// Faults for tests: makes a named operation fail with a chosen error number, before the
/// system call is made (a full disk, a permission denied), to prove each caller reports it.
///
/// Debug builds only (what `Scripts/test` runs); in a release build nothing is ever armed.
/// Two ways to arm one:
/// - ``with(_:_:)``, in unit tests: for the calls made inside its closure, on its task (or
///   its thread outside a task), so tests running in parallel are not affected;
/// - the environment variable `BMVAULT_TEST_IO_FAULTS=<operation>:<errno>[,...]`, read once,
///   for a whole process (end-to-end tests of the `bmvault` binary). `<operation>` is a
///   ``FileIOError/Operation`` name (`syncfs`, `write`, ...) and `<errno>` a C name such as
///   `ENOSPC`, or a number.
public enum InjectedFaults {
    #if DEBUG
    @TaskLocal private static var scoped: [FileIOError.Operation: Errno] = [:]

    private static let fromEnvironment: [FileIOError.Operation: Errno] = {
        guard let text = getenv("BMVAULT_TEST_IO_FAULTS") else { return [:] }
        var faults: [FileIOError.Operation: Errno] = [:]
        for directive in String(cString: text).split(separator: ",") {
            let parts = directive.split(separator: ":")
            // A directive that does not parse is a broken test, which must not pass by luck.
            guard parts.count == 2, let code = Errno(named: parts[1]) else {
                fatalError("BMVAULT_TEST_IO_FAULTS: cannot read \(directive)")
            }
            faults[FileIOError.Operation(rawValue: String(parts[0]))] = code
        }
        return faults
    }()

    /// Runs `body` with every operation in `faults` failing with its error number.
    public static func with<Result>(_ faults: [FileIOError.Operation: Errno], _ body: () throws -> Result) rethrows -> Result {
        try $scoped.withValue(faults, operation: body)
    }
    #endif

    /// Throws the fault armed for `operation`, if there is one.
    static func check(_ operation: FileIOError.Operation) throws(FileIOError) {
        #if DEBUG
        if let code = scoped[operation] ?? fromEnvironment[operation] { throw FileIOError(operation, code) }
        #endif
    }
}
