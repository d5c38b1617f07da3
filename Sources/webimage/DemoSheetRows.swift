import WebImage

/// The contact sheet's tiles from the demo's passes, each labelled by what it shows.
struct DemoSheetRows {
    let items: [DemoItem]
    /// The gallery as loaded whole (the warm memory pass), and as transformed.
    let full: [Image?]
    let transformed: [Image?]

    /// The first JPEG, PNG, GIF and WebP of the gallery, whole.
    var formatTiles: [ContactSheet.Tile] {
        [ImageFormat.jpeg, .png, .gif, .webp].compactMap { format in
            guard let index = items.firstIndex(where: { $0.format == format }),
                  index < full.count, let image = full[index] else { return nil }
            return Self.tile(image, Self.formatName(format))
        }
    }

    /// The gallery's first animation (a WebP, else a GIF), whole.
    var animation: Image? {
        for format in [ImageFormat.webp, .gif] {
            if let index = items.firstIndex(where: { $0.format == format }), index < full.count,
               let image = full[index], image.isAnimated {
                return image
            }
        }
        return nil
    }

    /// Every transformed gallery image, labelled by its file name.
    var galleryTiles: [ContactSheet.Tile] {
        zip(items, transformed).compactMap { item, image in
            image.map { ContactSheet.Tile($0.bitmap, (item.path.split(separator: "/").last.map(String.init) ?? "") + " round") }
        }
    }

    /// The tiles of `items` loaded as `images`, labelled by format and size.
    static func tiles(_ items: [DemoItem], _ images: [Image?]) -> [ContactSheet.Tile] {
        zip(items, images).compactMap { item, image in
            image.map { tile($0, formatName(item.format) + (item.format == .svg ? " rendered" : "")) }
        }
    }

    /// A server result's tile: the image, or an empty tile that says what the server answered.
    static func tile(_ result: DemoServe.Result) -> ContactSheet.Tile {
        guard let image = result.image else {
            return ContactSheet.Tile(Bitmap(width: 128, height: 96, fill: RGBA(r: 70, g: 40, b: 40)),
                                     "serve \(result.name) \(result.status)")
        }
        let format = ImageFormat(mimeType: result.contentType)
        return ContactSheet.Tile(image.bitmap, result.accept ? "serve Accept > \(formatName(format))" : "serve \(result.name)")
    }

    private static func tile(_ image: Image, _ name: String) -> ContactSheet.Tile {
        ContactSheet.Tile(image.bitmap, "\(name) \(image.width)x\(image.height)" + (image.isAnimated ? " anim" : ""))
    }

    static func formatName(_ format: ImageFormat) -> String {
        switch format {
        case .jpegXL: "JPEG XL"
        case .webp: "WebP"
        default: format.rawValue.uppercased()
        }
    }
}
