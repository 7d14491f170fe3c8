#!/usr/bin/env python3
"""Documents as office tools and phones make them, each naming a person, a company, a device, a serial,
dates and a home folder: the corpus for #55's figures (`measure-documents.sh`). Python's standard library,
Ghostscript and exiftool; nothing here is committed output.

    scripts/qa/make-documents.py OUT_DIR [PHOTO]     (PHOTO: testdata/photo.jpg; a small one for fuzz seeds)
"""
import io, os, subprocess, sys, tarfile, time, zipfile, zlib

OUT = sys.argv[1] if len(sys.argv) > 1 else "/tmp/documents"
os.makedirs(OUT, exist_ok=True)
HERE = os.path.dirname(os.path.abspath(__file__))
MARKERS = ["Jane Marker", "Acme Secret Corp", "SN-4417-SECRET", "/home/jane", "C:\\Users\\jane", "TestCam", "2023-04-05"]

# A phone photo: testdata/photo.jpg (TestCam, GPS) with an artist, a serial and a date added.
photo = os.path.join(OUT, "_photo.jpg")
subprocess.run(["cp", sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "../../testdata/photo.jpg"), photo], check=True)
subprocess.run(["exiftool", "-q", "-overwrite_original", "-Artist=Jane Marker", "-SerialNumber=SN-4417-SECRET",
                "-DateTimeOriginal=2023:04:05 10:11:12", photo], check=True)
PHOTO = open(photo, "rb").read()
T = (2023, 4, 5, 10, 11, 12)

def zinfo(name, comment=b""):
    i = zipfile.ZipInfo(name, T)
    i.compress_type = zipfile.ZIP_DEFLATED
    i.comment = comment
    # Info-ZIP's Unix uid/gid extra field ('ux') and an extended timestamp ('UT').
    i.extra = b"ux\x0b\x00\x01\x04\xe8\x03\x00\x00\x04\xe8\x03\x00\x00" + b"UT\x05\x00\x01" + int(time.mktime((*T, 0, 0, -1))).to_bytes(4, "little")
    return i

def write_zip(path, members, comment=b"", stored_first=None):
    with zipfile.ZipFile(path, "w") as z:
        z.comment = comment
        for name, data in members:
            i = zinfo(name)
            if name == stored_first:
                i.compress_type = zipfile.ZIP_STORED
                i.extra = b""
            z.writestr(i, data)

# --- PDF by hand: Info, XMP (plain and compressed), a markup annotation with an author, PieceInfo,
# a page thumbnail and the photo as a DCT image; then an incremental update that changes the author.
def pdf_by_hand(path):
    xmp = ('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
           '<rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:creator>Jane Marker</dc:creator></rdf:Description>'
           '</rdf:RDF></x:xmpmeta>').encode()
    zxmp = zlib.compress(b"<x:xmpmeta>Acme Secret Corp SN-4417-SECRET</x:xmpmeta>")
    content = b"BT /F1 24 Tf 72 720 Td (Contract of sale) Tj ET q 200 0 0 150 72 400 cm /Im1 Do Q"
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R /Metadata 6 0 R /PieceInfo << /Illustrator << /Private (C:\\\\Users\\\\jane\\\\contract.ai) >> >> >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> /XObject << /Im1 8 0 R >> >> /Annots [9 0 R] /Thumb 10 0 R /Metadata 7 0 R /LastModified (D:20230405101112) >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Type /Metadata /Subtype /XML /Length %d >>\nstream\n" % len(xmp) + xmp + b"\nendstream",
        b"<< /Type /Metadata /Subtype /XML /Filter /FlateDecode /Length %d >>\nstream\n" % len(zxmp) + zxmp + b"\nendstream",
        b"<< /Type /XObject /Subtype /Image /Width 1200 /Height 900 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length %d >>\nstream\n" % len(PHOTO) + PHOTO + b"\nendstream",
        b"<< /Type /Annot /Subtype /Text /Rect [72 72 92 92] /T (Jane Marker) /Contents (please sign) /M (D:20230405101112) >>",
        b"<< /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 8 /Length 1 >>\nstream\n\x80\nendstream",
        b"<< /Author (Jane Marker) /Creator (Acme Secret Corp Writer) /Producer (SN-4417-SECRET) /CreationDate (D:20230405101112) /Title (Contract) >>",
    ]
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for o in offsets: out += b"%010d 00000 n \n" % o
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 11 0 R /ID [<0123456789abcdef0123456789abcdef> <0123456789abcdef0123456789abcdef>] >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    # Incremental update: a new Info; the old one stays in the file's bytes.
    o12 = len(out)
    out += b"12 0 obj\n<< /Author (Jane Q. Marker) /ModDate (D:20230406101112) >>\nendobj\n"
    xref2 = len(out)
    out += b"xref\n0 1\n0000000000 65535 f \n12 1\n%010d 00000 n \n" % o12
    out += b"trailer\n<< /Size 13 /Root 1 0 R /Info 12 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n" % (xref, xref2)
    open(path, "wb").write(out)

pdf_by_hand(os.path.join(OUT, "contract.pdf"))

# --- PDF by Ghostscript: DOCINFO through pdfmark, the phone photo placed by viewjpeg.ps (pdfwrite passes
# a JPEG through as it is, its Exif with it).
import glob
viewjpeg = sorted(glob.glob("/usr/share/ghostscript/*/lib/viewjpeg.ps"))[-1]
subprocess.run(["gs", "-q", "-dBATCH", "-dNOPAUSE", "-dNOSAFER", "-sDEVICE=pdfwrite", "-o", os.path.join(OUT, "ghostscript.pdf"), viewjpeg, "-c",
                "[ /Author (Jane Marker) /Title (Holiday) /Subject (Acme Secret Corp) /Keywords (SN-4417-SECRET) /DOCINFO pdfmark "
                f"({photo}) viewJPEG"], check=True)

CT = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
      '<Default Extension="jpeg" ContentType="image/jpeg"/>{overrides}'
      '<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>'
      '<Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/>'
      '<Override PartName="/docProps/custom.xml" ContentType="application/vnd.openxmlformats-officedocument.custom-properties+xml"/></Types>')
ROOT_RELS = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
             '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="{main}"/>'
             '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>'
             '<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties" Target="docProps/app.xml"/>'
             '<Relationship Id="rId4" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/custom-properties" Target="docProps/custom.xml"/>'
             '<Relationship Id="rId5" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail" Target="docProps/thumbnail.jpeg"/></Relationships>')
CORE = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'
        '<dc:creator>Jane Marker</dc:creator><cp:lastModifiedBy>Jane Marker</cp:lastModifiedBy><cp:revision>7</cp:revision>'
        '<dcterms:created xsi:type="dcterms:W3CDTF">2023-04-05T10:11:12Z</dcterms:created><dcterms:modified xsi:type="dcterms:W3CDTF">2023-04-05T10:11:12Z</dcterms:modified></cp:coreProperties>')
APP = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties">'
       '<Template>C:\\Users\\jane\\AppData\\Roaming\\Microsoft\\Templates\\Normal.dotm</Template><TotalTime>42</TotalTime>'
       '<Application>Microsoft Office Word</Application><Company>Acme Secret Corp</Company><Manager>Jane Marker</Manager></Properties>')
CUSTOM = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/custom-properties" '
          'xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes"><property fmtid="{D5CDD505-2E9C-101B-9397-08002B2CF9AE}" pid="2" name="Serial"><vt:lpwstr>SN-4417-SECRET</vt:lpwstr></property></Properties>')
W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"'
DOC = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document {W}><w:body>'
       '<w:p w:rsidR="00A1B2C3" w:rsidRDefault="00A1B2C3"><w:r w:rsidR="00D4E5F6"><w:t xml:space="preserve">The quarterly figures are </w:t></w:r>'
       '<w:ins w:id="1" w:author="Jane Marker" w:date="2023-04-05T10:11:12Z"><w:r><w:t>final</w:t></w:r></w:ins>'
       '<w:del w:id="2" w:author="Jane Marker" w:date="2023-04-05T10:11:12Z"><w:r><w:delText>draft</w:delText></w:r></w:del>'
       '<w:commentRangeStart w:id="0"/><w:r><w:t>.</w:t></w:r><w:commentRangeEnd w:id="0"/><w:r><w:commentReference w:id="0"/></w:r></w:p>'
       '<w:p><w:r><w:drawing><wp:inline><wp:extent cx="1905000" cy="1428750"/><wp:docPr id="1" name="Picture 1"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">'
       '<pic:pic><pic:nvPicPr><pic:cNvPr id="0" name="photo.jpeg"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:embed="rId10"/></pic:blipFill>'
       '<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="1905000" cy="1428750"/></a:xfrm><a:prstGeom prst="rect"/></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>'
       '<w:sectPr w:rsidR="00A1B2C3"/></w:body></w:document>')
COMMENTS = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:comments {W}><w:comment w:id="0" w:author="Jane Marker" w:date="2023-04-05T10:11:12Z" w:initials="JM">'
            '<w:p><w:r><w:t>check with the lawyer</w:t></w:r></w:p></w:comment></w:comments>')
SETTINGS = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:settings {W}><w:attachedTemplate r:id="rId1"/><w:rsids><w:rsidRoot w:val="00A1B2C3"/><w:rsid w:val="00D4E5F6"/></w:rsids></w:settings>')
SETTINGS_RELS = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
                 '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/attachedTemplate" Target="file:///C:\\Users\\jane\\Templates\\Acme.dotm" TargetMode="External"/></Relationships>')
DOC_RELS = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/settings" Target="settings.xml"/>'
            '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments" Target="comments.xml"/>'
            '<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/printerSettings" Target="printerSettings/printerSettings1.bin"/>'
            '<Relationship Id="rId10" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/image1.jpeg"/></Relationships>')
write_zip(os.path.join(OUT, "report.docx"), [
    ("[Content_Types].xml", CT.format(overrides='<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
                                      '<Override PartName="/word/settings.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"/>'
                                      '<Override PartName="/word/comments.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml"/>')),
    ("_rels/.rels", ROOT_RELS.format(main="word/document.xml")), ("docProps/core.xml", CORE), ("docProps/app.xml", APP),
    ("docProps/custom.xml", CUSTOM), ("docProps/thumbnail.jpeg", PHOTO), ("word/document.xml", DOC), ("word/comments.xml", COMMENTS),
    ("word/settings.xml", SETTINGS), ("word/_rels/settings.xml.rels", SETTINGS_RELS), ("word/_rels/document.xml.rels", DOC_RELS),
    ("word/printerSettings/printerSettings1.bin", b"\\\\PRINTSRV\\Acme Secret Corp LaserJet SN-4417-SECRET" + bytes(64)),
    ("word/media/image1.jpeg", PHOTO)], comment=b"Jane Marker's report")

X = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
WORKBOOK = (f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook {X} xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:x15ac="http://schemas.microsoft.com/office/spreadsheetml/2010/11/ac" mc:Ignorable="x15ac">'
            '<mc:AlternateContent><mc:Choice Requires="x15"><x15ac:absPath url="C:\\Users\\jane\\Documents\\Acme Secret Corp\\"/></mc:Choice></mc:AlternateContent>'
            '<sheets><sheet name="Budget" sheetId="1" r:id="rId1"/></sheets></workbook>')
SHEET = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet {X}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Budget 2024</t></is></c><c r="B1"><v>1200</v></c></row></sheetData></worksheet>'
XCOMMENTS = f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<comments {X}><authors><author>Jane Marker</author></authors><commentList><comment ref="B1" authorId="0"><text><r><t>too high</t></r></text></comment></commentList></comments>'
WB_RELS = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
           '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>')
SHEET_RELS = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
              '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments" Target="../comments1.xml"/></Relationships>')
write_zip(os.path.join(OUT, "budget.xlsx"), [
    ("[Content_Types].xml", CT.format(overrides='<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
                                      '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
                                      '<Override PartName="/xl/comments1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.comments+xml"/>')),
    ("_rels/.rels", ROOT_RELS.format(main="xl/workbook.xml")), ("docProps/core.xml", CORE), ("docProps/app.xml", APP), ("docProps/custom.xml", CUSTOM),
    ("xl/workbook.xml", WORKBOOK), ("xl/_rels/workbook.xml.rels", WB_RELS), ("xl/worksheets/sheet1.xml", SHEET),
    ("xl/worksheets/_rels/sheet1.xml.rels", SHEET_RELS), ("xl/comments1.xml", XCOMMENTS)])

P = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"'
write_zip(os.path.join(OUT, "slides.pptx"), [
    ("[Content_Types].xml", CT.format(overrides='<Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/>'
                                      '<Override PartName="/ppt/slides/slide1.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slide+xml"/>'
                                      '<Override PartName="/ppt/commentAuthors.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.commentAuthors+xml"/>')),
    ("_rels/.rels", ROOT_RELS.format(main="ppt/presentation.xml")), ("docProps/core.xml", CORE), ("docProps/app.xml", APP), ("docProps/custom.xml", CUSTOM),
    ("docProps/thumbnail.jpeg", PHOTO),
    ("ppt/presentation.xml", f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<p:presentation {P}><p:sldIdLst><p:sldId id="256" r:id="rId2"/></p:sldIdLst></p:presentation>'),
    ("ppt/_rels/presentation.xml.rels", '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
     '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide" Target="slides/slide1.xml"/>'
     '<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/commentAuthors" Target="commentAuthors.xml"/></Relationships>'),
    ("ppt/slides/slide1.xml", f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<p:sld {P}><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>Roadmap</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>'),
    ("ppt/commentAuthors.xml", f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<p:cmAuthorLst {P}><p:cmAuthor id="0" name="Jane Marker" initials="JM" lastIdx="1" clrIdx="0"/></p:cmAuthorLst>'),
    ("ppt/media/image1.jpeg", PHOTO)])

# --- OpenDocument text: meta.xml, a tracked change and an annotation by the author, the printer, a thumbnail, the photo.
ODF_NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
          'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" xmlns:config="urn:oasis:names:tc:opendocument:xmlns:config:1.0"')
write_zip(os.path.join(OUT, "letter.odt"), [
    ("mimetype", "application/vnd.oasis.opendocument.text"),
    ("META-INF/manifest.xml", '<?xml version="1.0" encoding="UTF-8"?>\n<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">'
     '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>'
     '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="meta.xml" manifest:media-type="text/xml"/>'
     '<manifest:file-entry manifest:full-path="settings.xml" manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="Thumbnails/thumbnail.png" manifest:media-type="image/png"/>'
     '<manifest:file-entry manifest:full-path="Pictures/photo.jpg" manifest:media-type="image/jpeg"/></manifest:manifest>'),
    ("meta.xml", f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document-meta {ODF_NS} office:version="1.2"><office:meta><meta:initial-creator>Jane Marker</meta:initial-creator>'
     '<dc:creator>Jane Marker</dc:creator><meta:creation-date>2023-04-05T10:11:12</meta:creation-date><meta:generator>Acme Secret Corp Office SN-4417-SECRET</meta:generator>'
     '<meta:template xlink:href="/home/jane/Templates/letter.ott" xmlns:xlink="http://www.w3.org/1999/xlink"/></office:meta></office:document-meta>'),
    ("content.xml", f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document-content {ODF_NS} office:version="1.2"><office:body><office:text>'
     '<text:tracked-changes><text:changed-region text:id="ct1"><text:insertion><office:change-info><dc:creator>Jane Marker</dc:creator><dc:date>2023-04-05T10:11:12</dc:date></office:change-info></text:insertion></text:changed-region></text:tracked-changes>'
     '<text:p>Dear neighbour, <text:change-start text:change-id="ct1"/>thank you<text:change-end text:change-id="ct1"/>.'
     '<office:annotation><dc:creator>Jane Marker</dc:creator><dc:date>2023-04-05T10:11:12</dc:date><text:p>tone down</text:p></office:annotation></text:p>'
     '</office:text></office:body></office:document-content>'),
    ("settings.xml", f'<?xml version="1.0" encoding="UTF-8"?>\n<office:document-settings {ODF_NS} office:version="1.2"><office:settings><config:config-item-set config:name="ooo:configuration-settings">'
     '<config:config-item config:name="PrinterName" config:type="string">Acme Secret Corp LaserJet SN-4417-SECRET</config:config-item></config:config-item-set></office:settings></office:document-settings>'),
    ("Thumbnails/thumbnail.png", open(os.path.join(HERE, "../../testdata/rgb.png"), "rb").read()),
    ("Pictures/photo.jpg", PHOTO)], stored_first="mimetype")

# --- EPUB: OPF with creator, date, identifier, contributor (the tool), calibre meta; an XHTML page with meta author.
write_zip(os.path.join(OUT, "book.epub"), [
    ("mimetype", "application/epub+zip"),
    ("META-INF/container.xml", '<?xml version="1.0"?>\n<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>'),
    ("OEBPS/content.opf", '<?xml version="1.0" encoding="UTF-8"?>\n<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
     '<dc:identifier id="uid">urn:uuid:SN-4417-SECRET</dc:identifier><dc:title>Walks</dc:title><dc:creator>Ann Author</dc:creator><dc:language>en</dc:language>'
     '<dc:contributor>Acme Secret Corp converter on /home/jane</dc:contributor><dc:date>2023-04-05</dc:date><dc:publisher>Jane Marker</dc:publisher>'
     '<meta property="dcterms:modified">2023-04-05T10:11:12Z</meta><meta name="calibre:timestamp" content="2023-04-05T10:11:12"/><meta name="cover" content="cover"/></metadata>'
     '<manifest><item id="p1" href="page1.xhtml" media-type="application/xhtml+xml"/><item id="cover" href="photo.jpg" media-type="image/jpeg"/></manifest><spine><itemref idref="p1"/></spine></package>'),
    ("OEBPS/page1.xhtml", '<?xml version="1.0" encoding="UTF-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Walks</title><meta name="author" content="Jane Marker"/>'
     '<meta name="generator" content="Acme Secret Corp"/></head><body><p>The first walk starts at the bridge.</p></body></html>'),
    ("OEBPS/photo.jpg", PHOTO)], stored_first="mimetype")

# --- A ZIP of photos: archive and entry comments, Unix owner and time extra fields, the author's paths.
write_zip(os.path.join(OUT, "holiday.zip"), [("holiday/IMG_0001.jpg", PHOTO), ("holiday/IMG_0002.jpg", PHOTO),
                                              ("holiday/notes.txt", b"beach day\n")], comment=b"zipped by Jane Marker on /home/jane")
with zipfile.ZipFile(os.path.join(OUT, "holiday.zip"), "a") as z:
    pass

# --- A TAR of photos: user and group names, a pax comment and times.
with tarfile.open(os.path.join(OUT, "holiday.tar"), "w", format=tarfile.PAX_FORMAT) as t:
    for name in ["holiday/IMG_0001.jpg", "holiday/IMG_0002.jpg"]:
        i = tarfile.TarInfo(name)
        i.size, i.mtime, i.uid, i.gid, i.uname, i.gname = len(PHOTO), time.mktime((*T, 0, 0, -1)), 1000, 1000, "janemarker", "janemarker"
        i.pax_headers = {"comment": "taken by Jane Marker", "SCHILY.xattr.user.origin": "/home/jane/Pictures"}
        t.addfile(i, io.BytesIO(PHOTO))

# --- The same TAR compressed with gzip, its header naming the archive and its time.
import gzip
with open(os.path.join(OUT, "holiday.tar"), "rb") as f, gzip.GzipFile(os.path.join(OUT, "holiday.tar.gz"), "wb", mtime=time.mktime((*T, 0, 0, -1))) as g:
    g.write(f.read())

# --- HTML: meta author, generator, dates, a "saved from" comment.
open(os.path.join(OUT, "page.html"), "w").write(
    '<!DOCTYPE html>\n<!-- saved from url=(0031)file:///home/jane/drafts/page.html -->\n<html><head><meta charset="utf-8">'
    '<meta name="author" content="Jane Marker"><meta name="generator" content="Acme Secret Corp Sites SN-4417-SECRET">'
    '<meta name="date" content="2023-04-05"><title>Our trip</title></head><body><p>Photos below.</p></body></html>\n')
os.remove(photo)
print("\n".join(sorted(f for f in os.listdir(OUT) if not f.startswith("_"))))
