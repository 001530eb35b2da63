#if canImport(Glibc)
import Glibc
#endif

/// The error number a failed system call left in `errno`. Callers compare it with the
/// named values below (`error.errno == .exists`) instead of importing C's constants, and
/// errors print the C name ("ENOSPC"), which is what a reader searches for.
public struct Errno: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The number itself, as modules' errors carry it (`errno: Int32`).
    public let rawValue: Int32

    /// Any error number, named or not.
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// `ENOENT`: nothing has that name.
    public static let notFound = Errno(rawValue: ENOENT)
    /// `EEXIST`: the name is taken; a create-or-fail lost the race or found a leftover.
    public static let exists = Errno(rawValue: EEXIST)
    /// `EINTR`: a signal arrived first. ``systemCall(_:_:)`` retries these.
    public static let interrupted = Errno(rawValue: EINTR)
    /// `EWOULDBLOCK`: a lock another process holds, asked for without waiting.
    public static let wouldBlock = Errno(rawValue: EWOULDBLOCK)
    /// `ENOSPC`: the disk is full.
    public static let noSpace = Errno(rawValue: ENOSPC)
    /// `EACCES`: the permissions forbid it.
    public static let permissionDenied = Errno(rawValue: EACCES)
    /// `EIO`: the device failed.
    public static let ioError = Errno(rawValue: EIO)
    /// `ENOTDIR`: a directory was expected.
    public static let notDirectory = Errno(rawValue: ENOTDIR)
    /// `EISDIR`: a directory where a file was expected.
    public static let isDirectory = Errno(rawValue: EISDIR)
    /// `ENOTEMPTY`: a directory still has entries (`rename` onto it, `rmdir`).
    public static let directoryNotEmpty = Errno(rawValue: ENOTEMPTY)
    /// `EINVAL`: an argument the call refuses (a flag the file system does not support).
    public static let invalidArgument = Errno(rawValue: EINVAL)
    /// `EPERM`: not allowed at all, whatever the permissions (FAT and exFAT refuse `link`).
    public static let notPermitted = Errno(rawValue: EPERM)
    /// `EOPNOTSUPP` (`ENOTSUP`): the file system does not do this (SMB mounts refuse `link`).
    public static let notSupported = Errno(rawValue: EOPNOTSUPP)
    /// `ENOSYS`: the kernel or the FUSE driver has no such call.
    public static let noSuchCall = Errno(rawValue: ENOSYS)
    /// `EMLINK`: no more names for this file (or none but one, on some file systems).
    public static let tooManyLinks = Errno(rawValue: EMLINK)
    /// `EFBIG`: a file larger than allowed.
    public static let fileTooLarge = Errno(rawValue: EFBIG)
    /// `ELOOP`: a symbolic link where none may be followed (`O_NOFOLLOW`).
    public static let symbolicLink = Errno(rawValue: ELOOP)
    /// `ENXIO`: a socket or a device with nothing behind it, where a file was opened.
    public static let noDeviceOrAddress = Errno(rawValue: ENXIO)

    private static let names: [(Errno, String)] = [
        (.notFound, "ENOENT"), (.exists, "EEXIST"), (.interrupted, "EINTR"), (.wouldBlock, "EWOULDBLOCK"),
        (.noSpace, "ENOSPC"), (.permissionDenied, "EACCES"), (.ioError, "EIO"), (.notDirectory, "ENOTDIR"), (.isDirectory, "EISDIR"),
        (.directoryNotEmpty, "ENOTEMPTY"), (.invalidArgument, "EINVAL"), (.notPermitted, "EPERM"),
        (.notSupported, "EOPNOTSUPP"), (.noSuchCall, "ENOSYS"), (.tooManyLinks, "EMLINK"), (.fileTooLarge, "EFBIG"),
        (.symbolicLink, "ELOOP"), (.noDeviceOrAddress, "ENXIO"),
    ]

    /// The C name of a value named above, else `errno <number>`.
    public var description: String {
        Self.names.first { $0.0 == self }?.1 ?? "errno \(rawValue)"
    }

    /// The value whose C name is `name`, or a number as written; for the names of
    /// `BMVAULT_TEST_IO_FAULTS` (``InjectedFaults``).
    init?(named name: Substring) {
        if let named = Self.names.first(where: { $0.1 == name }) {
            self = named.0
        } else if let number = Int32(name), number > 0 {
            self.init(rawValue: number)
        } else {
            return nil
        }
    }
}
