import Foundation
import Testing
@testable import UploadPlanner

@Suite struct ComposeTests {
    func roundTrip(_ m: ComposedMessage, _ literal: String) throws {
        #expect(m.json.serialized == literal)
        let decoded = try JSONDecoder().decode(ComposedMessage.self, from: Data(literal.utf8))
        #expect(decoded == m)
    }

    @Test func textMessage() throws {
        try roundTrip(ComposedMessage(msgContent: .text("hi \"there\"\n")),
                      #"{"msgContent":{"type":"text","text":"hi \"there\"\n"}}"#)
    }

    @Test func imageMessageAsInSpec() throws {
        let m = ComposedMessage(fileSource: .init(filePath: "IMG_20261122_120000.jpg"), quotedItemId: 42,
                                msgContent: .image(text: "", image: "data:image/jpg;base64,/9j/4A=="),
                                mentions: ["alice": 7])
        try roundTrip(m, #"{"fileSource":{"filePath":"IMG_20261122_120000.jpg"},"quotedItemId":42,"msgContent":{"type":"image","text":"","image":"data:image/jpg;base64,/9j/4A=="},"mentions":{"alice":7}}"#)
    }

    @Test func videoMessage() throws {
        let m = ComposedMessage(fileSource: .init(filePath: "VID_20261122_120000.mp4"),
                                msgContent: .video(text: "clip", image: "data:image/jpg;base64,AA==", duration: 12))
        try roundTrip(m, #"{"fileSource":{"filePath":"VID_20261122_120000.mp4"},"msgContent":{"type":"video","text":"clip","image":"data:image/jpg;base64,AA==","duration":12}}"#)
    }

    @Test func voiceMessage() throws {
        let m = ComposedMessage(fileSource: .init(filePath: "voice_20261122_120000.m4a"),
                                msgContent: .voice(text: "", duration: 5))
        try roundTrip(m, #"{"fileSource":{"filePath":"voice_20261122_120000.m4a"},"msgContent":{"type":"voice","text":"","duration":5}}"#)
    }

    @Test func fileMessage() throws {
        let m = ComposedMessage(fileSource: .init(filePath: "отчёт.pdf"), msgContent: .file(text: "report"))
        try roundTrip(m, #"{"fileSource":{"filePath":"отчёт.pdf"},"msgContent":{"type":"file","text":"report"}}"#)
    }

    @Test func linkMessage() throws {
        let preview = LinkPreview(uri: "https://simplex.chat", title: "SimpleX", description: "private", image: "data:image/jpg;base64,AA==")
        let m = ComposedMessage(msgContent: .link(text: "https://simplex.chat", preview: preview))
        try roundTrip(m, #"{"msgContent":{"type":"link","text":"https://simplex.chat","preview":{"uri":"https://simplex.chat","title":"SimpleX","description":"private","image":"data:image/jpg;base64,AA=="}}}"#)
    }

    @Test func multipleAttachmentsPutTextQuoteAndMentionsOnTheLast() throws {
        let attachments = [
            MessageComposer.Attachment(filePath: "IMG_1.jpg", content: .image(text: "", image: "data:image/jpg;base64,AA==")),
            MessageComposer.Attachment(filePath: "VID_2.mp4", content: .video(text: "", image: "data:image/jpg;base64,AQ==", duration: 3)),
        ]
        let msgs = try MessageComposer().compose(attachments, text: "look", quotedItemId: 9, mentions: ["bob": 3, "alice": 2])
        let cmd = SendCommand(chat: try SendCommand.parseChat("#5"), messages: msgs)
        #expect(cmd.line == #"/_send #5 live=off ttl=default json [{"fileSource":{"filePath":"IMG_1.jpg"},"msgContent":{"type":"image","text":"","image":"data:image/jpg;base64,AA=="}},{"fileSource":{"filePath":"VID_2.mp4"},"quotedItemId":9,"msgContent":{"type":"video","text":"look","image":"data:image/jpg;base64,AQ==","duration":3},"mentions":{"alice":2,"bob":3}}]"#)
        let array = try JSONDecoder().decode([ComposedMessage].self, from: Data(JSONValue.array(msgs.map(\.json)).serialized.utf8))
        #expect(array == msgs)
    }

    @Test func limitsOnMediaAndMentions() {
        let a = MessageComposer.Attachment(filePath: "f", content: .file(text: ""))
        #expect(throws: ComposeError.self) { try MessageComposer().compose(Array(repeating: a, count: 11)) }
        #expect((try? MessageComposer().compose(Array(repeating: a, count: 10)).count) == 10)
        #expect(throws: ComposeError.self) {
            try MessageComposer().compose([a], mentions: ["a": 1, "b": 2, "c": 3, "d": 4])
        }
        #expect(throws: ComposeError.self) { try SendCommand.parseChat("5") }
        #expect(throws: ComposeError.self) { try SendCommand.parseChat("@x") }
        #expect((try? SendCommand.parseChat("@12")) == .contact(12))
    }

    @Test func noAttachmentsIsOneTextMessage() throws {
        let msgs = try MessageComposer().compose([], text: "hello", quotedItemId: 1)
        #expect(msgs.count == 1)
        #expect(msgs[0].json.serialized == #"{"quotedItemId":1,"msgContent":{"type":"text","text":"hello"}}"#)
    }

    @Test(arguments: [
        (Int64(0), "19700101_000000"), (1_795_348_800, "20261122_120000"), (951_782_400, "20000229_000000"),
        (4_102_444_799, "20991231_235959"), (-1, "19691231_235959"),
    ])
    func fileNameStamps(t: Int64, expected: String) {
        #expect(FileNaming.stamp(t) == expected)
    }

    @Test func fileNamePrefixes() {
        #expect(FileNaming.name(kind: .image, unixSeconds: 1_795_348_800, ext: "jpg") == "IMG_20261122_120000.jpg")
        #expect(FileNaming.name(kind: .video, unixSeconds: 0, ext: "mp4") == "VID_19700101_000000.mp4")
        #expect(FileNaming.name(kind: .voice, unixSeconds: 0, ext: "m4a") == "voice_19700101_000000.m4a")
    }

    @Test func jsonEscaping() {
        #expect(JSONValue.string("a/b\u{1}é").serialized == "\"a/b\\u0001é\"")
        #expect(JSONValue.double(3.0).serialized == "3")
        #expect(JSONValue.double(2.5).serialized == "2.5")
    }
}
