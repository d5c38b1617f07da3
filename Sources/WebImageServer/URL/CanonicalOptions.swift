import WebImage

extension ProcessingOptions {
    /// Every option that differs from its default, as imgproxy options (`rt:fill/w:300/…`) in one
    /// fixed order with short names, so equal options always print the same. The file name is
    /// written base64url-encoded (`fn:…:1`) and the cache buster has `%`, `/`, `:`, `|` and control
    /// characters percent-escaped, so neither can contain the key's `|` separator.
    var canonicalPath: String {
        let defaults = ProcessingOptions()
        var segments: [String] = []
        func add(_ name: String, _ arguments: String...) { segments.append(([name] + arguments).joined(separator: ":")) }
        if resizingType != defaults.resizingType { add("rt", resizingType.rawValue) }
        if resizingAlgorithm != defaults.resizingAlgorithm { add("ra", resizingAlgorithm.rawValue) }
        if width != 0 { add("w", String(width)) }
        if height != 0 { add("h", String(height)) }
        if minWidth != 0 { add("mw", String(minWidth)) }
        if minHeight != 0 { add("mh", String(minHeight)) }
        if zoomX != 1 || zoomY != 1 { add("z", Self.number(zoomX), Self.number(zoomY)) }
        if dpr != 1 { add("dpr", Self.number(dpr)) }
        if enlarge { add("el", "1") }
        if extend.enabled { add("ex", "1", Self.gravity(extend.gravity)) }
        if extendAspectRatio.enabled { add("exar", "1", Self.gravity(extendAspectRatio.gravity)) }
        if padding.isEnabled { segments.append((["pd"] + padding.sides.map { String($0) }).joined(separator: ":")) }
        if gravity != .center { add("g", Self.gravity(gravity)) }
        if let crop {
            var arguments = [Self.number(crop.width), Self.number(crop.height)]
            if let gravity = crop.gravity { arguments.append(Self.gravity(gravity)) }
            segments.append((["c"] + arguments).joined(separator: ":"))
        }
        if autoRotate != defaults.autoRotate { add("ar", autoRotate ? "1" : "0") }
        if rotate != 0 { add("rot", String(rotate)) }
        if flipHorizontal || flipVertical { add("fl", flipHorizontal ? "1" : "0", flipVertical ? "1" : "0") }
        if let background { add("bg", Self.hex(background)) }
        if blur != 0 { add("bl", Self.number(blur)) }
        if sharpen != 0 { add("sh", Self.number(sharpen)) }
        if pixelate > 1 { add("pix", String(pixelate)) }
        if watermark.isEnabled {
            add("wm", Self.number(watermark.opacity), watermark.position.rawValue, Self.number(watermark.x),
                Self.number(watermark.y), Self.number(watermark.scale))
        }
        if raw { add("raw", "1") }
        if quality != 0 { add("q", String(quality)) }
        if !formatQuality.isEmpty {
            segments.append((["fq"] + formatQuality.sorted { $0.key.rawValue < $1.key.rawValue }
                .flatMap { [$0.key.rawValue, String($0.value)] }).joined(separator: ":"))
        }
        if let format { add("f", format.rawValue) }
        if bestFormat { add("f", "best") }
        if let cacheBuster { add("cb", Self.escaped(cacheBuster)) }
        if let expires { add("exp", String(expires)) }
        if let filename { add("fn", Base64URL.encode(Array(filename.utf8)), "1") }
        if returnAttachment { add("att", "1") }
        if stripMetadata != defaults.stripMetadata { add("sm", stripMetadata ? "1" : "0") }
        if let maxSourceResolution { add("msr", Self.number(maxSourceResolution)) }
        if let maxSourceFileSize { add("msfs", String(maxSourceFileSize)) }
        if let trim {
            add("t", Self.number(trim.threshold), trim.color.map(Self.hex) ?? "", trim.equalHorizontal ? "1" : "0",
                trim.equalVertical ? "1" : "0")
        }
        if maxBytes != 0 { add("mb", String(maxBytes)) }
        if let keepCopyright { add("kcr", keepCopyright ? "1" : "0") }
        if let stripColorProfile { add("scp", stripColorProfile ? "1" : "0") }
        return segments.joined(separator: "/")
    }

    /// A whole number without a fraction, else the shortest decimal that reads back the same.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }

    private static func gravity(_ gravity: Gravity) -> String {
        gravity.type == .smart ? "sm" : [gravity.type.rawValue, number(gravity.x), number(gravity.y)].joined(separator: ":")
    }

    private static func hex(_ color: RGBA) -> String {
        let channels = color.a == 255 ? [color.r, color.g, color.b] : [color.r, color.g, color.b, color.a]
        return channels.map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
        }.joined()
    }

    private static func escaped(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F || "%/:|".unicodeScalars.contains(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out.append(contentsOf: ("%" + (hex.count < 2 ? "0" + hex : hex)).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}
