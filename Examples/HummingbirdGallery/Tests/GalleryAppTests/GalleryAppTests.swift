import Foundation
import GalleryApp
import Hummingbird
import HummingbirdTesting
import Testing
import WebImage

/// The gallery over real HTTP on loopback (HummingbirdTesting's live server): its own routes,
/// and every image the page names loaded through the mounted image server and decoded.
@Suite struct GalleryAppTests {
    let photos: URL

    init() throws {
        photos = FileManager.default.temporaryDirectory.appendingPathComponent("gallery-test-\(UUID().uuidString)")
        try SamplePhotos.write(to: photos)
    }

    /// The `src` of every `<img>` and the `href` of every link on `page`.
    private func attributes(_ name: String, in page: String) -> [String] {
        page.components(separatedBy: "\(name)=\"").dropFirst().compactMap { $0.split(separator: "\"").first }
            .map { $0.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&") }
    }

    @Test func thePagesImagesLoadThroughTheMountedServer() async throws {
        defer { try? FileManager.default.removeItem(at: photos) }
        var configuration = GalleryConfiguration(photos: photos)
        configuration.port = 0
        let application = try GalleryApplication.make(configuration)
        try await application.test(.live) { client in
            let page = try await client.execute(uri: "/", method: .get)
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            let html = String(buffer: page.body)
            let tiles = attributes("src", in: html)
            #expect(tiles.count == SamplePhotos.files.count)

            for tile in tiles {
                #expect(tile.hasPrefix(GalleryApplication.imagesPrefix + "/"))
                let response = try await client.execute(uri: tile, method: .get)
                #expect(response.status == .ok, "\(tile)")
                #expect(response.headers[.contentType] == "image/webp")
                let image = try CodersManager.shared.decode(Data(response.body.readableBytesView), options: .default)
                #expect(image.format == .webp)
                #expect(image.pixelSize == PixelSize(width: 300, height: 200))
            }

            // The full view of the 1600x1000 JPEG fits 1200x1200.
            let full = try #require(attributes("href", in: html).first { $0.contains("harbour.jpg") })
            let response = try await client.execute(uri: full, method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "image/jpeg")
            let image = try CodersManager.shared.decode(Data(response.body.readableBytesView), options: .default)
            #expect(image.pixelSize == PixelSize(width: 1200, height: 750))
        }
    }

    @Test func theServersChecksAndTheAppsOwnRoutesStandSideBySide() async throws {
        defer { try? FileManager.default.removeItem(at: photos) }
        var configuration = GalleryConfiguration(photos: photos)
        configuration.port = 0
        let application = try GalleryApplication.make(configuration)
        try await application.test(.live) { client in
            let list = try await client.execute(uri: "/api/photos", method: .get)
            #expect(list.status == .ok)
            let entries = try JSONSerialization.jsonObject(with: Data(list.body.readableBytesView)) as? [[String: String]]
            #expect(entries?.map { $0["name"] } == SamplePhotos.files.map(\.name).sorted())

            // Unsigned: refused by the image server's signature check.
            let unsigned = try await client.execute(uri: "/images/insecure/rs:fit:100:100/plain/local:///harbour.jpg",
                                                    method: .get)
            #expect(unsigned.status == .forbidden)
            // A tampered signed URL: refused too.
            let tile = try #require(entries?.first?["tile"])
            let tampered = try await client.execute(uri: tile.replacingOccurrences(of: "300", with: "301"), method: .get)
            #expect(tampered.status == .forbidden)
            // Paths outside the mount point are the app's: an unknown one is its 404.
            let missing = try await client.execute(uri: "/nothing-here", method: .get)
            #expect(missing.status == .notFound)
        }
    }
}
