import Foundation
import WebImage

/// The photos of a folder and the signed image-server URLs that show them.
struct Gallery: Sendable {
    let folder: URL
    let signer: ImageServerSigner
    let prefix: String

    /// The size of a tile on the page and the largest side of the full view, in pixels.
    static let tile = PixelSize(width: 300, height: 200)
    static let fullSide = 1200

    /// One photo's URLs on the page.
    struct Photo: Encodable {
        let name: String
        /// A `tile`-sized crop around the photo's most interesting part, as WebP.
        let tile: String
        /// The whole photo within `fullSide`×`fullSide`, as JPEG.
        let full: String
    }

    /// The folder's image files by name, each with its URLs.
    func photos() throws -> [Photo] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { ImageFormat(fileExtension: ($0 as NSString).pathExtension.lowercased()) != .undefined }
            .sorted()
        return try names.map { name in
            let source = "local:///" + (name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? name)
            let tile = try ImageServerURL(source: source, fileExtension: "webp")
                .resize(.fill, width: Self.tile.width, height: Self.tile.height)
                .option("g", "sm")
            let full = try ImageServerURL(source: source, fileExtension: "jpg")
                .resize(.fit, width: Self.fullSide, height: Self.fullSide)
            return Photo(name: name, tile: prefix + (try tile.signedPath(with: signer)),
                         full: prefix + (try full.signedPath(with: signer)))
        }
    }

    /// The gallery page: a grid of tiles, each a link to the full photo.
    func page() throws -> String {
        let tiles = try photos().map { photo in
            """
              <a href="\(escaped(photo.full))"><img src="\(escaped(photo.tile))" width="\(Self.tile.width)" \
            height="\(Self.tile.height)" alt="\(escaped(photo.name))"></a>
            """
        }
        return """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>Gallery</title>
        <style>body{font-family:sans-serif;background:#222;color:#eee}img{margin:4px;border-radius:6px}</style>
        </head><body>
        <h1>Gallery</h1>
        \(tiles.joined(separator: "\n"))
        </body></html>
        """
    }

    /// The photos as JSON: `[{"name":…,"tile":…,"full":…}]`.
    func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(try photos())
    }

    private func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
