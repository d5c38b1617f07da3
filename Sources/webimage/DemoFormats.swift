import Foundation
import WebImage

/// The formats beyond the gallery's, served by the demo origin and loaded like the rest: AVIF
/// and JPEG XL made by the library's encoders, an SVG the library renders, and a HEIC file
/// (this library writes no HEIC: libheif's HEVC encoder, x265, is GPL-licensed).
enum DemoFormats {
    /// The four items, under `/formats/`.
    static func make() throws -> [DemoItem] {
        let photo = Image(bitmap: DemoPainter.photo(11, width: 256, height: 192))
        let badge = Image(bitmap: DemoPainter.sticker(5, width: 192, height: 192))
        return [
            try encoded("photo.avif", photo, .avif),
            try encoded("badge.jxl", badge, .jpegXL),
            DemoItem(path: "/formats/quadrants.heic", data: heic, contentType: ImageFormat.heic.mimeType, format: .heic),
            DemoItem(path: "/formats/rings.svg", data: Data(svg.utf8), contentType: ImageFormat.svg.mimeType, format: .svg),
        ]
    }

    private static func encoded(_ name: String, _ image: Image, _ format: ImageFormat) throws -> DemoItem {
        let data = try CodersManager.shared.encode(image, as: format, options: EncodeOptions(compressionQuality: 0.8))
        return DemoItem(path: "/formats/" + name, data: data, contentType: format.mimeType, format: format)
    }

    /// Concentric rings, a gradient and a path: rendered by librsvg at its 192×192 size.
    static let svg = """
        <svg xmlns="http://www.w3.org/2000/svg" width="192" height="192" viewBox="0 0 192 192">
          <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
            <stop offset="0" stop-color="#3a7bd5"/><stop offset="1" stop-color="#00d2ff"/></linearGradient></defs>
          <rect width="192" height="192" rx="24" fill="url(#g)"/>
          <circle cx="96" cy="96" r="70" fill="none" stroke="#fff" stroke-width="10"/>
          <circle cx="96" cy="96" r="42" fill="none" stroke="#ffd166" stroke-width="10"/>
          <path d="M60 120 L96 56 L132 120 Z" fill="#ef476f" fill-opacity="0.85"/>
        </svg>
        """

    /// A 64×48 HEIC with alpha (four gradient quadrants), made by libheif's `heif-enc` for the
    /// HEIF decoder's tests (Tests/Fixtures/heif/alpha.heic).
    static let heic = Data(base64Encoded: """
        AAAAHGZ0eXBoZWljAAAAAG1pZjFoZWljbWlhZgAAAvxtZXRhAAAAAAAAACFoZGxyAAAAAAAAAABwaWN0AAAAAAAAAAAAAAAA
        AAAAAA5waXRtAAAAAAACAAAAGGlkYXQAAAAAAEAAMAAAAAAAQAAwAAAAYGlsb2MBAAAAREAABAABAAAAAAAAAyAAAQAAAAAA
        AACDAAIAAQAAAAAAAAABAAAAAAAAAAgAAwAAAAAAAAOjAAEAAAAAAAAARgAEAAEAAAAAAAAAAQAAAAgAAAAIAAAAYmlpbmYA
        AAAAAAQAAAAVaW5mZQIAAAEAAQAAaHZjMQAAAAAVaW5mZQIAAAAAAgAAZ3JpZAAAAAAVaW5mZQIAAAEAAwAAaHZjMQAAAAAV
        aW5mZQIAAAAABAAAZ3JpZAAAAAGxaXBycAAAAYRpcGNvAAAAdmh2Y0MBA3AAAAAAAAAAAAAe8AD8/fj4AAAPAyAAAQAYQAEM
        Af//A3AAAAMAkAAAAwAAAwAeugJAIQABACpCAQEDcAAAAwCQAAADAAADAB6gIIEFlurkprm4EBAwIAAAAwAgAAADACEiAAEA
        BkQBwXPAiQAAABRpc3BlAAAAAAAAAEAAAABAAAAAFGlzcGUAAAAAAAAAQAAAADAAAAAQcGl4aQAAAAADCAgIAAAAcWh2Y0MB
        BAgAAAAAAAAAAAAe8AD8/Pj4AAAPAyAAAQAXQAEMAf//BAgAAAMAn/gAAAMAAB66AkAhAAEAJkIBAQQIAAADAJ/4AAADAAAe
        wIIEFlurkprmwIAAAAMAgAAAAwCEIgABAAZEAcFzwIkAAAAUaXNwZQAAAAAAAABAAAAAQAAAABRpc3BlAAAAAAAAAEAAAAAw
        AAAADnBpeGkAAAAAAQgAAAAnYXV4QwAAAAB1cm46bXBlZzpoZXZjOjIwMTU6YXV4aWQ6MQAAAAAlaXBtYQAAAAAAAAAEAAEC
        gQIAAgIDhAADAoUGAAQDB4iJAAAANmlyZWYAAAAAAAAADmRpbWcAAgABAAEAAAAOZGltZwAEAAEAAwAAAA5hdXhsAAQAAQAC
        AAAA0W1kYXQAAAB/KAGvCeAjR5fM9qcf1fTVgJfD6PI3vk10mHf9xtDIXsjZQh+N7+3vJ3+LC4liFie1fUDP3rYGNpH5F78d
        1Ia52B+RBNFBEYG+GooXW6QbHwXF5K5SrwD9AU4aBprtnxsy/1oEK7Rucq1tnhfcX2kQHkviVKCIzGayf3P3ml12IwAAAEIo
        Aa4TwGtmgqFWk+cLp2NjBUOqcYVv437Dqg9XP6fp9nSwBqgfBzmHReEhtuXgv6X/y16tW3jBNscn6eSn8mhZl7g=
        """, options: .ignoreUnknownCharacters)!
}
