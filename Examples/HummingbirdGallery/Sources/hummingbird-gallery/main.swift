import Foundation
import GalleryApp
import Hummingbird

// hummingbird-gallery [--host H] [--port N] [--photos DIR]
// Without --photos, sample photos are written to a temporary folder.
var configuration = GalleryConfiguration(photos: FileManager.default.temporaryDirectory
    .appendingPathComponent("hummingbird-gallery-\(ProcessInfo.processInfo.processIdentifier)"))
var usesSamples = true
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch (argument, arguments.popFirst()) {
    case ("--host", let value?): configuration.host = value
    case ("--port", let value?):
        guard let port = Int(value), (0...65535).contains(port) else {
            FileHandle.standardError.write(Data("--port needs a number from 0 to 65535\n".utf8))
            exit(2)
        }
        configuration.port = port
    case ("--photos", let value?):
        configuration.photos = URL(fileURLWithPath: value, isDirectory: true)
        usesSamples = false
    default:
        FileHandle.standardError.write(Data("usage: hummingbird-gallery [--host H] [--port N] [--photos DIR]\n".utf8))
        exit(2)
    }
}
if usesSamples { try SamplePhotos.write(to: configuration.photos) }
print("Gallery of \(configuration.photos.path) on http://\(configuration.host):\(configuration.port)/")
try await GalleryApplication.make(configuration).runService()
