"""Real ISS game records (ISS_FORMAT.md §5, from jSkat's MessageParserTest fixtures) and the
ones in ``tests/data/iss_records.txt``. Reading and replaying them is ``skatsim.iss``'s job
(one importer): this module only holds the data."""

from __future__ import annotations

import re
from pathlib import Path

RECORDS = {
    # suit game lost with 59 points
    541932: "(;GM[Skat]PC[International Skat Server]CO[]SE[24072]ID[541932]DT[2010-12-06/18:59:24/UTC]P0[zoot]P1[kermit]P2[foo]R0[]R1[]R2[0.0]MV[w HA.SK.SJ.SA.CQ.S8.C9.H7.H9.DQ.CJ.S9.DJ.S7.D9.SQ.C8.HQ.DK.CA.D8.D7.DT.CT.ST.C7.HK.DA.HT.HJ.H8.CK 1 p 2 18 0 p 2 s w H8.CK 2 D.ST.H8 0 SA 1 S7 2 DA 2 HJ 0 SJ 1 D9 0 DQ 1 DJ 2 D7 1 CJ 2 D8 0 CQ 1 CA 2 C7 0 C9 1 S9 2 DT 0 S8 2 CT 0 H7 1 C8 2 CK 0 H9 1 HQ 2 HK 0 HA 1 SQ 0 SK 1 DK 2 HT ]R[d:2 loss v:-54 m:-2 bidok p:59 t:4 s:0 z:0 p0:0 p1:0 p2:0 l:-1 to:-1 r:0] ;)",
    # grand won
    684159: "(;GM[Skat]PC[International Skat Server]CO[]SE[29859]ID[684159]DT[2011-04-05/20:35:55/UTC]P0[foo]P1[xskat:2]P2[xskat]R0[0.0]R1[]R2[]MV[w SQ.DK.ST.S7.CT.HK.S9.SK.H7.C7.DT.CA.CQ.CK.DJ.DA.H8.SA.D7.C8.SJ.HA.CJ.S8.C9.DQ.HJ.HQ.D9.D8.HT.H9 1 18 0 y 1 20 0 y 1 22 0 y 1 23 0 y 1 24 0 y 1 p 2 27 0 p 2 s w HT.H9 2 G.S8.C9 0 DK 1 DA 2 D8 1 DT 2 D9 0 ST 1 SA 2 CJ 0 S7 2 HJ 0 CT 1 DJ 2 DQ 0 C7 1 D7 2 HA 0 H7 1 H8 2 HT 0 HK 1 C8 2 HQ 0 S9 1 CQ 2 H9 0 SQ 1 CK 2 SJ 0 SK 1 CA ]R[d:2 win v:96 m:3 bidok p:85 t:8 s:0 z:0 p0:0 p1:0 p2:0 l:-1 to:-1 r:0] ;)",
    # overbid: 75 points but lost
    8650652: "(;GM[Skat]PC[International Skat Server]CO[]SE[403949]ID[8650652]DT[2023-10-18/18:44:11/UTC]P0[kermit]P1[bonsai]P2[kermit:2]R0[]R1[0.0]R2[]MV[w DQ.CK.HT.CT.SK.C9.DA.D9.DK.S8.H9.S7.SA.H8.C7.CA.H7.CJ.CQ.D7.SQ.S9.C8.DT.SJ.HA.ST.D8.DJ.HJ.HQ.HK 1 18 0 p 2 20 1 y 2 22 1 y 2 23 1 y 2 24 1 y 2 27 1 y 2 30 1 y 2 33 1 y 2 35 1 y 2 36 1 p 2 s w HQ.HK 2 D.C8.ST 0 HT 1 H9 2 HA 2 DJ 0 D9 1 D7 2 HJ 0 DQ 1 CJ 1 CA 2 DT 0 C9 2 SJ 0 DK 1 H8 2 HK 0 S8 1 H7 2 HQ 0 SK 1 C7 2 SQ 0 CT 1 SA 1 S7 2 S9 0 CK 2 D8 0 DA 1 CQ ]R[d:2 loss v:-72 m:-1 overbid p:75 t:7 s:0 z:0 p0:0 p1:0 p2:0 l:-1 to:-1 r:0] ;)",
    # everybody passed
    756788: "(;GM[Skat]PC[International Skat Server]CO[]SE[32407]ID[756788]DT[2011-05-28/08:46:19/UTC]P0[xskat]P1[bonsai]P2[bernie]R0[]R1[0.0]R2[]MV[w C8.DQ.DJ.HK.S9.SK.SQ.HQ.CK.D9.S8.DT.SJ.C9.CQ.SA.DK.HT.D7.H7.ST.HJ.C7.H8.S7.DA.CJ.CT.D8.H9.CA.HA 1 p 2 p 0 p ]R[passed] ;)",
}

DATA_FILE = Path(__file__).parent / "data" / "iss_records.txt"


def data_records() -> dict[int, str]:
    """The records of ``tests/data/iss_records.txt`` by ID (comment lines skipped)."""
    lines = [ln for ln in DATA_FILE.read_text().splitlines() if ln.startswith("(;")]
    return {int(re.search(r"ID\[(\d+)\]", ln).group(1)): ln for ln in lines}


def all_records() -> dict[int, str]:
    """Every real record: :data:`RECORDS` and the data file."""
    return {**RECORDS, **data_records()}
