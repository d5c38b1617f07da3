import AvatarsApp
import Foundation
import Vapor

// vapor-avatars [serve --port N]; the avatar store is AVATAR_ORIGIN (for example
// https://avatars.example.com/), the thumbnails' disk cache AVATAR_CACHE (default: a folder
// under the temporary directory).
var environment = try Environment.detect()
try LoggingSystem.bootstrap(from: &environment)
let app = try await Application.make(environment)
guard let originText = Environment.get("AVATAR_ORIGIN"), let origin = URL(string: originText),
      origin.scheme == "http" || origin.scheme == "https" else {
    app.logger.critical("Set AVATAR_ORIGIN to the avatar store's http(s) address.")
    try await app.asyncShutdown()
    exit(2)
}
let cache = Environment.get("AVATAR_CACHE").map { URL(fileURLWithPath: $0, isDirectory: true) }
    ?? FileManager.default.temporaryDirectory.appendingPathComponent("vapor-avatars")
do {
    try configure(app, avatars: AvatarConfiguration(origin: origin, cacheDirectory: cache))
    try await app.execute()
} catch {
    app.logger.report(error: error)
    try? await app.asyncShutdown()
    throw error
}
try await app.asyncShutdown()
