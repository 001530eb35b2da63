import BMCLI
#if canImport(Glibc)
import Glibc
#endif

exit(BMCLIMain.run(arguments: Array(CommandLine.arguments.dropFirst())))
