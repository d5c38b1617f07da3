import Foundation
import Testing
@testable import WebImageCodecs

/// Inputs the `avif` and `heif` fuzz targets flagged, replayed through the same checks.
@Suite("Fuzz regressions: AVIF and HEIF")
struct FuzzRegressionHEIFTests {
    /// fuzz-heif: a `mif1` file whose primary item is a grid with a damaged `ispe` property;
    /// libheif reports the primary image as 0x0. The header reader answered a 0x0 size (the
    /// target's invariant stopped it); now it answers nil, and decoding fails cleanly.
    @Test func gridWithoutASizeHasNoHeader() {
        let data = FuzzReplay.bytes("""
        AAAAHGZ0eXBtaWYxAAAAAG1pZjFtaWFmbWlhZgAAAa1tZXRhAAAAAAAAACFoZGxyAAAAPwAAAABwaWN0AAAAAAAAAAAAAAAA
        AAAAAA5waXRtAAAAAAACAAAAEGlkYXQAAAAAAEAAMAAAADhpbG9jAQAAAERAAAIAAQAAAAAAAAHRAAEAAAAAAAAAgwACAAEA
        AAAAAAAAAQAAAAAAAAAIAAAAOGlpbmYAAAAAAAIAAAAVaW5mZQIAAAEAAQAAaHZjMQAAAAAVaW5mZQIAAAAAAgAAZ3JpZAAA
        AADYaXBycAAAALZpcGNvAAAAdmh2Y0MBA3AAAAAAAAAAAAAe8AD8/fj4AAAPAyAAAQAYQAEMAf//A3AAAAMAkAAAAwAAAwAe
        ugJAIQABACpCAQEDcAAAAwCQAAADAAADAB6gIIEFlurkprm4EBAwIAAAAwAgAAADACEiAAEABkQBwXPAiQAAABRpc3BlAAAA
        AAAAAEAAAABAAAAAFGlzk5r///////8AQAAAADAAAAAQcGl4aQAAAAADCAgIAAAAGmlwbWEAAAAAAAAAAgABAoECAAICA4QA
        AAAaaXJlZgAAAAAAAAAOZGltZwACAAEAAQAAAIttZGF0AAAAfygBrwngcAAAAAAAAAAAAB7wAPz9+PgAAA8DIAABABhAAQwB
        //8DcAAAAwCQAAADAAADAB66AkAhAAEAKkIBAQNwAAADAJAAAAMAAAMAHqAggQWW6uSmubgQEDAgAAADACAAAAMAISIAAQAG
        RAHBc8CJAAAAFGlzcGUAAAAAAAAAQAAAAEAAAAAUaXNwZQAAAAAAAABAAAAAMAAAABBwaXhpAAAAAAMICAgAAAAaaXBtYQAA
        AAAAAAACAAECgQIAAgIDhAAAABppcmVmAAAAAAAAAA5kaW1nAAIAAQABAAAAi21kYXQAAADMZrJ/c/eaXXYj
        """)
        #expect(data.count == 711)
        #expect(ImageFormat.detect(data) == .heif)
        #expect(HEIFCoder().imageInfo(for: data) == nil)
        for options in FuzzReplay.optionSets {
            let outcome = FuzzReplay.decode(data, with: HEIFCoder(), options: options, formats: [.heif])
            #expect((try? outcome.get()) == nil)
        }
    }

    /// fuzz-heif (a 37 s timeout under ASan, 6.7 s in a release build): a 678-byte file whose
    /// image is declared 16384x48 while libheif decodes a 64x8240 picture from it. Resampling
    /// that into the declared size widened each of its 8,240 rows to 16,384 pixels; a picture
    /// of another shape than the declared one is now refused.
    @Test func aPictureOfAnotherShapeThanDeclaredIsRefused() {
        let data = FuzzReplay.bytes("""
        AAAAHGZ0eXBtaWYxAAAAAG1pZjFtaWFmbWlhZgAAAa1tZXRhAAAAAAAAACFoZGxyAAAAAAAAAABwaWN0AAAAAAAAAAAAAAAA
        AAAAAA5waXRtAAAAAAACAAAAEGlkYXQAAAAAAEAgMAAAADhpbG9jAQAAAERAAAIAAQAAAAAAAAHRAAEAAAAAAAAAgwACAAEA
        AAAAAAAAAQAAAAAAAAAIAAAAOGlpbmYAAAAAAAIAAAAVaW5mZQIAAAEAAQAAaHZjMQAAAAAVaW5mZQIAAAAAAgAAZ3JpZAAA
        AADYaXBycAAAALZpcGNvAAAAdmh2Y0MBA3AAAAAAAAAAAAAe8AD8/fj4AAAPAyAAAQAYQAEMAf//A3AAAAMAkAAAAwAAAwAe
        ugJAIQABACpCAQEDcAAAAwCQAAADAAADAB6gIIEFlurkprm4EBAwIAAAAwAgAAADACEiAAEABkQBwXPAiQAAABRpc3BlAAAA
        AAAAAEAAAABAAAAAFGlzcGUAAAAAAABAAAAAADAAAAAQcGl4aQAAAAADCAgIAAAAGmlwbWEAAAAAAAAAAgABAoECAAICA4QA
        AAAaaXJlZgAAAAAAAAAOZGltZwACAAEAAQAAAIttZGF0AAAAfygBrwngI0eXzPanH9VmAAAAAAACAAAAFWluZmUCAAABAAEA
        AGh2YzEAAAAAFWluZmUCAAAAAEAAAAAUaXNwZQAAAAAAAABAAAAAMAAAABBwaXhpAAAAAAMICAgAAAAa9NWAl8Po8je+TXSY
        d/3G0MheyNlCH43v7e8nf4sLiWIWJ7V9QM/etgY2kfkXvx3UhrnYH5EE0UERgb4aihdbpBsfBcXkrlKvAP0BThoGmu2fGzL/
        WgQrtG5yrW2eF9xfaRAeS+JUoIjMZrJ/c/cBAAAA
        """)
        #expect(data.count == 678)
        #expect(HEIFCoder().imageInfo(for: data)?.pixelSize == PixelSize(width: 16384, height: 48))
        for options in FuzzReplay.optionSets {
            let outcome = FuzzReplay.decode(data, with: HEIFCoder(), options: options, formats: [.heif])
            #expect((try? outcome.get()) == nil)
        }
        // The same shape at another size (a layered or damaged file) is still resampled.
        #expect(throws: Never.self) {
            try HEIFPixels.checkShape(PixelSize(width: 1436, height: 730), declared: PixelSize(width: 360, height: 182))
        }
        #expect(throws: WebImageError.self) {
            try HEIFPixels.checkShape(PixelSize(width: 64, height: 8240), declared: PixelSize(width: 16384, height: 48))
        }
    }

    /// fuzz-heif (an abort: libheif 1.15's `assert(imginfo)` in `decode_image_planar`): the
    /// primary item is an `iden` derived image whose `dimg` reference leads to no image item.
    /// Such a file is now refused before libheif decodes it.
    @Test func anIdentityOfAMissingImageIsRefused() {
        let data = FuzzReplay.bytes("""
        AAAAHGZ0eXBoZWljAAAAAG1pZjFoZWljbWlhZgAABAttZXRhAAAAAAAAACFoZGxyAAAAAAAAAABwaWN0AAAAAAAAAAAAAAAA
        AAAAAA5waXRtAAAAAAACAAAAEGlkYXQAAAAAABAAEAAAADhpbG9jAQAAAERAAAIAAQAAAAAAAAQvAAEAAAAAAAAANwACAAEA
        AAAAAAAAAQAAAAAAAAAIAAAAOGlpbmYAAAAAAAIAAAAVaW5mZQIAAAEAAQAASHZjMQAAAAAVaW5mZQIAAAAAAgAAaWRlbgAA
        AAM2aXBycAAAAxNpcGNvAAAAd2h2Y0MBBAgAAAAAAAAAAAAe8AD8//j4AAAPAyAAAQAXQAEMAf//BAgAAAMAnjgAAAMAAB66
        AkAhAAEAKkIBAQQIAAADAJ44AAADAAAekAQQILLdVdNc3AgIGBAAAAMAEAAAAwAQgCIAAQAIRAHBcxgwGJAAAAAUaXNwZQAA
        AAAAAABAAAAAQAAAABRpc3BlAAAAAAAAABAAAAAQAAACXGNvbHJwcm9mAAACUGxjbXMEQAAAbW50clJHQiBYWVogB+oACwAY
        ABMAKgAoQWNzcEFQUEwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAPbWAAEAAAAA0y1sY21zAAAAAAAAAAAAAAAAAAAAAAAA
        AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAALZGVzYwAAAQgAAAA6Y3BydAAAAUQAAABMdwBwaWN0AAAAAAAAAAAAAAAA
        AAAAAA5waXRtAAAAAAACAAAAEGlkYXQAAAAAABAAEAAAADhpbG9jAQAAAERAAAIAAQAAAAAAAAQvAAEAAAAAAAADAAAekAQQ
        ILLdVdNc3AgIGBAAAAMAEAAAAwAQgCIAAQAIRAHBcxgwGJAAAAAUaXNwZQAAAAAAAABAAAAAQAAAABRpc3BlAAAAAAAAABAA
        AAAQAAACXGNvbHJwcm9mAAACUGxjbXMEQAAAbW50clJHQiAe8AD8//j4AAAPAyAAAQAXQAEMAf//BAgAAAMAnjgAAAMAAB66
        AkAhAAEAKkIBAQQIAAADAJ44AAADAAAekAQQILLdVdNc3AgIGBAAAAMAEAAAAwAQgCIAAQAIRAHBcxgwGJAAAAAUaXNwZQAA
        AAAAAABAAAAAQAAAABRpc3BlAAAAAAAAABAAAAAQAAACXGNvbHJwcm9mAAACUGxjbXMEQAAAbW50clJHQiBYWVogB+oACwAY
        ABMAKgAoYWNzcEEADVkAAAAAADAKW2Nocm0AAAAAAAMAAAAArhQAAFHsAABD1wAAsKQAACZmAAAPXAAAABBwaXhpAAAAAAMI
        CAgAAAAbaXBtYQAAAAAAAAACAAECgQIAAgMDhIUAAAAaaXJlZgAAAAAAAAAOZGltZwACAAEAAQAAAD9tZGF0AAAAMygBrwYy
        Foc0iSDwvztf//9VX9l+2ISArOvJ1n7WY8fkt5CRnvRfexhS5Tx0IPScU7nNgA==
        """)
        #expect(data.count == 1126)
        #expect(HEIFItemGraphTests.check(data)?.message.contains("not an image") == true)
        for options in FuzzReplay.optionSets {
            let outcome = FuzzReplay.decode(data, with: HEIFCoder(), options: options, formats: [.heif])
            #expect((try? outcome.get()) == nil)
        }
    }

    /// fuzz-heif (a trap in the item-graph reader, 2026-11-28): an `iinf` box of 12 bytes whose
    /// payload ends before its entry count. Reading its entries built a range whose start passed
    /// its end; boxes inside a payload shorter than its header now read as none.
    @Test func anItemInfoBoxShorterThanItsHeaderReadsAsNoItems() {
        let data = FuzzReplay.bytes("""
        AAAAHGZ0eXBoZWljAAAAAG1pZjFoZWljbWlhZgAAAbdtZXRhAAAAAAAAACFoZGxyAAAAAAAAAABwaWN0AAAAAAAAAAAAAAAA
        AAAAAA5waXRtAAAAAAACAAAAEGlkYXQAAAAAAEAAMAAAADhpbG9jAQAAAERAAAIAAQAAAAAAAAHbAAEAAAAAAAAAgwACAAEA
        AAAAAAAAAQAAAAAAAAAIAAAADGlpbmYAAAAAAAIAAAAVaW5mZQIAAAEAAQAFmHZjMQAAAAAVaW5mZQIAAAAAAgAAZ3JpZAAA
        AADiaXBycAAAAL9pcGNvAAAAdmh2Y0MBA3AAAAAAAAAAAAAe8AD8/fj4AAAPAyAAAQAYQAEMAf//A3AAAAMAkAAAAwAAAwAe
        ugJAIQABACpCAQEDcAAAAwCQAAADAAADAB6gIIEFlurkprm4EBAwIAAAAwAgAAADACEiAAEABkQBwXPAiQAAABRpc3BlAAAA
        AAAAAEAAAABAAAAACWlyb3QDAAAAFGlzcGUAAAAAAAAAMAAAAEAAAAAQcGl4aQAAAAADCAgIAAAAG2lwbWEAAAAAAAAAAgAB
        AoECAAIDAwSFAAAAGmlyZWYAAAAAAAAADmRpbWcAAgABAAEAAACLbWRhdAAAAH8oAa8J4CNHl8z2px/V9NWAl8Po8je+TXSY
        d/3G0MheyNlCH43v7e8nf4sLiWIWJ7V9QM/etgY2kfkXvx3UhrnYH5EE0UERgb4aihdbpBsfBcXkrlKvAP0BThoGmu2fGzL/
        WgQrtG5yrW2eF9xfaRAeS+JUoIjMZrJ/c/eaXXYj
        """)
        #expect(data.count == 606)
        #expect(HEIFItemGraphTests.check(data) == nil)
        for options in FuzzReplay.optionSets {
            let outcome = FuzzReplay.decode(data, with: HEIFCoder(), options: options, formats: [.heif])
            #expect((try? outcome.get()) == nil)
        }
    }

    /// fuzz-heif (out of memory, an 805 MB allocation in libheif): the primary item is a grid
    /// whose `ispe` says 64x48 (48x64 turned) but whose grid data declares a 12288x16384 canvas,
    /// which libheif 1.15 allocates as declared. The grid's own size is now read from the file
    /// and checked against the limits before libheif decodes anything.
    @Test func gridDeclaringAHugeCanvasIsRefused() {
        let data = FuzzReplay.bytes("""
        AAAAHGZ0eXBoaWNlAAAAAG1pZjFoZWljbWlhZgAAAbdtZXRhAAAAAAAAACFoZGxyAAAAAAAAAABwaWN0AAAAAAAAAAAAAAAA
        AAAAAA5waXRtAAAAAAACAAAAEGlkYXQAAAAAMABAAAAAADhpbG9jAQAAAERAAAIAAQAAAAAAAAHbAAEAAAAAAAAAgwACAAEA
        AAAAAAAAAQAAAAAAAAAIAAAAOGlpbmYAAAAAAAIAAAAVaW5mZQIAAAEAAQAAaHZjMQAAAAAVaW5mZQIAAAAAAgAAZ3JpZAAA
        AADiaXBycAAAAL9pcGNvAAAAdmh2Y0MBA3AAAAAAAAAAAAAe8AD8/fj4AAAPAyAAAQAYQAEMAf//A3AAAAMAkAAAAwAAAwAe
        ugJAIQABACpCAQEDcAAAAwCQAAADAAADAB6gIIEFlurkprm4EBAwIAAAAwAgAAADACEiAAEABkQBwXPAiQAAABRpc3BlAAAA
        AAAAAEAAAABAAAAACWlyb3QDAAAAFGlzcGUAAAAAAAAAMAAAAEAAAAAQcGl4aQAAAAADCAgIAAAAG2lwbWEAAAAAAAAAAgAB
        AoECAAIDAwSFAAAAGmlyZWYAAAAAAAAADmRpbWcAAgABAAEAAACLbWRhdAAAAH8oAa8J4CNHl8z2px/V9NWAl8Po8je+TXSY
        I/3G0MheyNlCH43v7e8nf4sLiWIWJ7V9QM/etgY2kfkXvx3UhrnYH5EE0UERgb4aihdbpBsfBcXkrlKvAP0BThoGmu2fGzL/
        WgQrtG5yrQAAABxmdHlwaXNvbQAAAABpc29tbXA0MW1wNDIAAAGtbWV0YQAAAAAAAAAhaGRscgAAAAAAAAAAcGljdAAA/v//
        //////8AAAAAAAAAAAAAAAAAAA5waXRtAAAAAAACAAAAEGlkYXQAAAAAAEAAMAAAADhpbG9jAQAAAERAAAIAAQAAAAAAAAHR
        AAEAAAAAAAAAgwACAAEAAAAAAAAAAQAAAAAAAAAIAAAAOGkACAAAADhpaW5mAAAAAAACAAAAFWluZmUCIwAAAQABAABodmMx
        AAAAABVpbmZlAgAAAAACAABncmlkAAAAANhpcHJwAAAAtmlwY28AAAB2aHZjQwEDcAAAAAAAAAAAAB7wAPz9+PgAAA8DIAAB
        ABhAAQwB//8DcAAAAwCQAAADAAADAB66AkAhAAEAKkIBAQMAkABwAAMAAAMAAAMAHqAggQWW6uSmubgQEDAgAAADACAAAAMA
        ISIAwIkAAAAUaXNwZQAAAAAAAAAAHGZ0eXBtaWYxAAAAAG1pZjFtaWFmbWlhZgAAAa1tZXRhAAAAAAAAACFoZGxyAAAAAAAA
        AABwaWN0AAAAAAAAAAAAAAAAAAAAQAAAAMZAAAAAFGlzcGUAAAAAAAAAQAAAADAAAAAQcGl4aQAAAAAAAAAcZnR5cG1pZjEA
        AAAAbWlmMW1pYWZtaWFmAAABrW1ldGEAAAAAAAAAIWhkbHIAAAAAAAAAAHBpY3QAAAAAAAAAAAAAAAAAAAAADnBpdG0AAAAA
        AAIAAAAQaWRhdAAAAAAAQAAwAAAAOGlsb2MBAAAAREAAAgABAAAAAAAAAdEAAQAAAAAAAACDAAIAAQAAAAAAAAABAAAAAAAA
        AAgAAAA4aWluZgAAAAAAAgAAABVpbmZlAgAAAQABAABodmMxAAAAABVpbmZlAgAAAAACAABncmlkAAAAANhpcHJwAAAAtmlw
        Y28AAAB2aHZjQwEDcAAAAAAAAAAAAB7wAPz9+PgAAA8DIAABABhAAQwB//8DcAAAAwCQAAADAAADAB66AkAhPwABACpCAQED
        cAAAAwCQAAADAAADcGNvAAAAdmh2Y0MBA3AAAAAAAAAAAAAe8AD8/fj4AAAPAyAAAQAYQAEMAf//A3AAAAMAkAAAAwAAAwAe
        ugJAIQABACpCAQEDcAAAAwCQAAADAAADAB6gIIEFlurkprm4EBBtnhfcX2kQAQAAAAAAAA+yMCAAAAMAIAAAAwAhIgABAAZE
        AcFzwIkAAAAUaXNwZQAAAAAAAABAAAAAQAAAf3P3ABRpc3BlAAAAAAAAAEAAAAA1AAAAEHBpeGkAAAAAAwgICAAAABoDCAgI
        AAAAGmlwbWEAAAAAAAAAAgABAoECAAICA4QAAAAaaXJlZgAAAAAAAAAOZGltZwACAAEAAQAAAIttZGF0AAAAfygBrwngI0eX
        zPanH9X01YCXw+jyM75NdJh3/cbQyF7I2ZpCH43v7e8nf4tpcG1hAAAAAAAAAAIAAQKBAgACAgOEAAAAGmlyZWYAAAAAAAAA
        DmRpbWcAAgABAAEAAACLbWRhdAAAAH8oAa8J4CNHl8z2px/V9NWAl8Po8je+TXSYd/3G0MheyNlCH43v7e8nf4sLiWIWJ7V9
        QM/etgY2kfkXC4liFie1fUDP3rYGNm8G6EAd1Ia52B+RBAAAAA5waXRtAAAAAAACAAAAEGlkYXQAAAAAAEAAMAAAADhpbG9j
        AQAAAERddkAAvx3Uhrkj2B+RBNFBEYG+GgAeoCCBBZbq5Ka5uBAQbZ4X3F9pEAEAAAAAAAAPsjAgAAADACAAAAMAISIAAQAG
        RAHBc8CJAAAAFGlzcGUAAAAAAAAAQAAAAEAAAH9z9wAUaXNwZQAAAAAAAABAAAAANQAAABBwaXhpAAAAAAMICAgAAAAaAwgI
        CAAAABppcG1hAAAAAAAAAAIAAQKBAgACAgOEAAAAGmlyZWYAAAAAAAAADmRpbWcAAgABAAEAAACLbWRhdAAAAH8oAa8J4CNH
        l8z2px/V9NWAl8Po8je+TXSYd/3G0MheyNmaQh+N7+3vJ3+LaXBtYQAAAAAAAAACAAECgQIAAgIDhAAAABppcmVmAAAAAAAA
        AA5kaW1nAAIAAQABAAAAi21kYXQAAAB/KAGvCeAjR5fM9qcf1fTVgJfD6PI3vk10mHf9xtDIXsjZQh+N7+3vJ3+LC4liFie1
        fUDP3rYGNpH5FwuJYhYntX1Az962BjZvBuhAHdSGudgfkQQAAAAOcGl0bQAAAAAAAgAAABBpZGF0AAAAAABAADAAAAA4aWxv
        YwEAAABEXXZAAL8d1Ia5I9gfkQTRQRGBvhqKF1ukGx8FxeSuAgABAAAAAAAAAdEAAQAAAAAAAACDAAIAAQAAAABSrwD9AU4a
        Bprtnxsy/1oEK7Rucq1tnhfcX2kQHkviVKCIzGayf3P3ml12AAAAAdEAACNB
        """)
        #expect(data.count == 2421)
        let grid = data.withUnsafeBytes { raw in
            HEIFItemGraph(raw.bindMemory(to: UInt8.self)).flatMap { $0.canvas(of: $0.primary) }
        }
        #expect(grid == PixelSize(width: 12288, height: 16384))
        for options in FuzzReplay.optionSets {
            let outcome = FuzzReplay.decode(data, with: HEIFCoder(), options: options, formats: [.heic])
            #expect((try? outcome.get()) == nil)
        }
        #expect(CodecFixtures.errorCode { try HEIFCoder().decode(data, options: .default) } == .imageTooLarge)
    }
}
