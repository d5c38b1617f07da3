import CodecsCLIKit
import Foundation

var output = StandardOutput()
let status = CodecsCLI.run(arguments: Array(CommandLine.arguments.dropFirst()), output: &output)
exit(status)
