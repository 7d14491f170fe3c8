import Foundation
import Testing
@testable import MediaPrep
import TestSupport
import UploadPlanner

@Suite(.serialized) struct LinkPreviewTests {
    let server: TestHTTPServer
    let jpeg: [UInt8]

    init() throws {
        server = try TestHTTPServer()
        jpeg = try Fixture.bytes("small.jpg")
        server.route("/img.jpg", .init(headers: [("Content-Type", "image/jpeg")], body: jpeg))
    }

    /// The test server is on loopback, so it is named as an allowed host; everything else stays blocked.
    func previewer(_ tweak: (inout LinkPreviewer.Options) -> Void = { _ in }) -> LinkPreviewer {
        var o = LinkPreviewer.Options()
        o.allowedHosts = ["127.0.0.1"]
        // A loaded 2-core CI machine (the first test also opens libcurl and its ~60 libraries) once took
        // over 15 s, and with a second suite and two builds beside it 154 s: these tests check what a
        // page yields, not how fast, so the limit is only a backstop. The timeout tests below set theirs.
        (o.totalTimeout, o.connectTimeout) = (300, 60)
        tweak(&o)
        return LinkPreviewer(options: o)
    }

    func code(_ body: () async throws -> Void) async -> MediaPrepError.Code? {
        do { try await body(); return nil } catch let e as MediaPrepError { return e.code } catch { return .decodeFailed }
    }

    @Test func openGraphPageInUTF8() async throws {
        server.html("/og", """
            <!doctype html><html><head><meta charset="utf-8">
            <title>Fallback title</title>
            <meta property="og:title" content="Caf&eacute; &amp; Cr&egrave;me — Ünïcode ✓">
            <meta property="og:description" content="A  page
               about &#8220;coffee&#8221;.">
            <meta property="og:image" content="/img.jpg">
            </head><body><meta property="og:title" content="not this"></body></html>
            """)
        let p = try await previewer().preview(url: server.base + "/og")
        #expect(p.uri == server.base + "/og")
        #expect(p.title == "Café & Crème — Ünïcode ✓")
        #expect(p.description == "A page about “coffee”.")
        #expect(p.image.hasPrefix("data:image/jpg;base64,") && p.image.count <= 14_000)
        let msg = MsgContent.link(text: "see " + p.uri, preview: p)
        #expect(msg.json.serialized.hasPrefix("{\"type\":\"link\",\"text\":\"see http"))
    }

    @Test func latin1PageByMetaAndByHeader() async throws {
        // "Grüße aus Köln – née" in windows-1252 bytes, declared two ways.
        let body: [UInt8] = Array("<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=ISO-8859-1\"><meta property=\"og:title\" content=\"Gr".utf8)
            + [0xFC, 0xDF, 0x65] + Array(" aus K".utf8) + [0xF6] + Array("ln ".utf8) + [0x96] + Array(" n".utf8) + [0xE9, 0x65]
            + Array("\"><meta property=\"og:image\" content=\"img.jpg\"></head></html>".utf8)
        server.route("/latin1", .init(headers: [("Content-Type", "text/html")], body: body))
        server.route("/latin1-header", .init(headers: [("Content-Type", "text/html; charset=windows-1252")],
                                             body: body.map { $0 }))
        #expect(try await previewer().preview(url: server.base + "/latin1").title == "Grüße aus Köln – née")
        #expect(try await previewer().preview(url: server.base + "/latin1-header").title == "Grüße aus Köln – née")
    }

    @Test func fallbacksWithoutOpenGraph() async throws {
        server.html("/plain", """
            <html><head><title>  Plain &lt;page&gt; </title>
            <meta name="description" content="Described the old way">
            <meta name="twitter:image" content="\(server.base)/img.jpg"></head></html>
            """)
        let p = try await previewer().preview(url: server.base + "/plain")
        #expect(p.title == "Plain <page>")
        #expect(p.description == "Described the old way")
    }

    @Test func redirectsAreFollowedUpToFive() async throws {
        server.html("/final", "<html><head><meta property=og:title content=Final><meta property=og:image content=/img.jpg></head></html>")
        for i in 1...5 { server.redirect("/r\(i)", to: i == 5 ? "/final" : "/r\(i + 1)") }
        #expect(try await previewer().preview(url: server.base + "/r1").title == "Final")
        for i in 1...6 { server.redirect("/s\(i)", to: i == 6 ? "/final" : "/s\(i + 1)") }
        #expect(await code { _ = try await previewer().preview(url: server.base + "/s1") } == .fetchFailed)
    }

    @Test func privateAddressesAreBlockedUnlessAllowed() async throws {
        server.html("/ok", "<html><head><meta property=og:title content=Ok><meta property=og:image content=/img.jpg></head></html>")
        // By default even the test server is refused: it is on loopback.
        #expect(await code { _ = try await LinkPreviewer().preview(url: server.base + "/ok") } == .blockedHost)
        // A redirect to the cloud metadata address or a private network is refused before any request.
        server.redirect("/to-metadata", to: "http://169.254.169.254/latest/meta-data/")
        server.redirect("/to-private", to: "http://10.1.2.3/")
        server.redirect("/to-localhost", to: "http://localhost:\(server.port)/ok")
        #expect(await code { _ = try await previewer().preview(url: server.base + "/to-metadata") } == .blockedHost)
        #expect(await code { _ = try await previewer().preview(url: server.base + "/to-private") } == .blockedHost)
        #expect(await code { _ = try await previewer().preview(url: server.base + "/to-localhost") } == .blockedHost)
        // --allow-private-hosts opens all of them.
        #expect(try await LinkPreviewer(options: { var o = LinkPreviewer.Options(); o.allowPrivateHosts = true; return o }())
            .preview(url: server.base + "/to-localhost").title == "Ok")
    }

    @Test func slowPagesTimeOut() async throws {
        // The server answers after 30 s: a preview that stopped at its 1.5 s limit is done long before,
        // however loaded the machine (the bound was 2.9 s against a 3 s answer: a wall-clock race).
        server.route("/slow", .init(headers: [("Content-Type", "text/html")], body: Array("<html></html>".utf8), delay: 30))
        let start = Date()
        #expect(await code { _ = try await previewer { $0.totalTimeout = 1.5; $0.connectTimeout = 1 }.preview(url: server.base + "/slow") } == .timeout)
        let took = Date().timeIntervalSince(start)
        #expect(took > 0.9 && took < 20, "took \(took) s")
    }

    @Test func imagesTooLargeOrNotImagesGiveNoPreview() async throws {
        server.route("/big.jpg", .init(headers: [("Content-Type", "image/jpeg")], body: jpeg + [UInt8](repeating: 0, count: 200_000)))
        server.html("/big", "<html><head><meta property=og:image content=/big.jpg></head></html>")
        #expect(await code { _ = try await previewer { $0.maxImageBytes = 100_000 }.preview(url: server.base + "/big") } == .tooLarge)
        server.route("/fake.jpg", .init(headers: [("Content-Type", "image/jpeg")], body: Array("<html>surprise</html>".utf8)))
        server.html("/fake", "<html><head><meta property=og:image content=/fake.jpg></head></html>")
        #expect(await code { _ = try await previewer().preview(url: server.base + "/fake") } == .noImage)
        server.html("/none", "<html><head><title>No image</title></head></html>")
        #expect(await code { _ = try await previewer().preview(url: server.base + "/none") } == .noImage)
    }

    @Test func otherRefusals() async throws {
        server.route("/data.json", .init(headers: [("Content-Type", "application/json")], body: Array("{}".utf8)))
        #expect(await code { _ = try await previewer().preview(url: server.base + "/data.json") } == .notHTML)
        #expect(await code { _ = try await previewer().preview(url: server.base + "/missing") } == .fetchFailed)
        #expect(await code { _ = try await previewer().preview(url: "file:///etc/passwd") } == .invalidURL)
        #expect(await code { _ = try await previewer().preview(url: "ftp://example.org/x") } == .invalidURL)
        server.redirect("/to-file", to: "file:///etc/passwd")
        #expect(await code { _ = try await previewer().preview(url: server.base + "/to-file") } == .invalidURL)
    }

    @Test func pagesAreReadOnlyUpToTheCap() async throws {
        let filler = String(repeating: "<p>filler</p>", count: 100_000)  // 1.3 MB of body after the head
        server.html("/long", "<html><head><meta property=og:title content=Long><meta property=og:image content=/img.jpg></head><body>\(filler)</body></html>")
        #expect(try await previewer { $0.maxPageBytes = 64 * 1024 }.preview(url: server.base + "/long").title == "Long")
    }
}

@Suite struct LinkFinderTests {
    @Test func firstNonSimplexLink() {
        #expect(LinkFinder.firstPreviewable(in: "look at https://example.org/a?b=1.") == "https://example.org/a?b=1")
        #expect(LinkFinder.firstPreviewable(in: "(see https://en.wikipedia.org/wiki/Swift_(language))") == "https://en.wikipedia.org/wiki/Swift_(language)")
        #expect(LinkFinder.firstPreviewable(in: "join https://simplex.chat/contact#/?v=2 then www.example.com/x") == "https://www.example.com/x")
        #expect(LinkFinder.firstPreviewable(in: "simplex:/contact#abc and https://smp4.simplex.im/a#xyz") == nil)
        #expect(LinkFinder.firstPreviewable(in: "no links here, just www.") == nil)
        #expect(LinkFinder.isSimplexLink("https://simplex.chat/invitation#/?v=2"))
        #expect(!LinkFinder.isSimplexLink("https://example.org/simplex.chat"))
    }

    @Test func addressClassification() {
        for a in ["127.0.0.1", "10.0.0.8", "172.16.5.4", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "255.255.255.255"] {
            #expect(!AddressPolicy.isPublic(a.split(separator: ".").compactMap { UInt8($0) }), "\(a)")
        }
        #expect(AddressPolicy.isPublic([93, 184, 216, 34]))
        var mapped = [UInt8](repeating: 0, count: 16)
        mapped[10] = 0xFF; mapped[11] = 0xFF; mapped[12] = 127; mapped[15] = 1
        #expect(!AddressPolicy.isPublic(mapped))                      // ::ffff:127.0.0.1
        #expect(!AddressPolicy.isPublic([UInt8](repeating: 0, count: 15) + [1]))  // ::1
        #expect(!AddressPolicy.isPublic([0xFE, 0x80] + [UInt8](repeating: 0, count: 14)))
        #expect(!AddressPolicy.isPublic([0xFD, 0x12] + [UInt8](repeating: 0, count: 14)))
        #expect(AddressPolicy.isPublic([0x26, 0x06, 0x47, 0x00] + [UInt8](repeating: 1, count: 12)))
    }
}

@Suite struct TextMessageTests {
    @Test func textWithAURLBecomesALinkMessage() async throws {
        let server = try TestHTTPServer()
        defer { server.stop() }
        server.route("/img.jpg", .init(headers: [("Content-Type", "image/jpeg")], body: try Fixture.bytes("small.jpg")))
        server.html("/post", "<html><head><meta property=og:title content='A post'><meta property=og:image content=/img.jpg></head></html>")
        var o = BatchOptions(outputDirectory: NSTemporaryDirectory(), timestamp: 0)
        o.text = "join simplex:/contact#abc or read \(server.base)/post!"
        o.chat = .contact(1)
        o.linkPreviews?.allowedHosts = ["127.0.0.1"]
        let r = await BatchPreparer(o).prepare([])
        let t = try #require(r.text)
        #expect(t.url == server.base + "/post")
        #expect(t.linkPreview?.title == "A post")
        #expect(t.composedMessage.msgContent.typeName == "link")
        #expect(r.sendLines.count == 1 && r.sendLines[0].contains("\"type\":\"link\""))

        // A failed preview never fails the message: plain text, and the reason.
        o.text = "read \(server.base)/missing"
        let failed = await BatchPreparer(o).prepare([])
        #expect(failed.text?.composedMessage.msgContent == .text("read \(server.base)/missing"))
        #expect(failed.text?.previewError?.code == .fetchFailed)
        #expect(failed.text?.json.serialized.contains("\"linkPreviewError\":{\"code\":\"fetchFailed\"") == true)

        // Off: nothing is fetched.
        let before = server.requests.count
        o.linkPreviews = nil
        o.text = "read \(server.base)/post"
        let off = await BatchPreparer(o).prepare([])
        #expect(off.text?.composedMessage.msgContent == .text("read \(server.base)/post"))
        #expect(server.requests.count == before)
    }

    @Test func withAttachmentsTheTextIsACaption() async throws {
        var o = BatchOptions(outputDirectory: NSTemporaryDirectory() + "mediaprep-cap-" + UUID().uuidString, timestamp: 0)
        defer { try? FileManager.default.removeItem(atPath: o.outputDirectory) }
        o.text = "see https://example.invalid/x"
        let r = await BatchPreparer(o).prepare([Fixture.path("small.jpg")])
        #expect(r.text == nil)
        #expect(r.items.first?.composedMessage?.msgContent.text == "see https://example.invalid/x")
    }
}
