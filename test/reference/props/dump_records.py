#!/usr/bin/env python3
# dump_records.py COMMITLOG_DIR: every record of a RocketMQ 4.x commit log folder, one line each,
# with the fields that must match between two brokers (times, hosts and physical offsets masked).
import os, struct, sys

MAGIC = 0xDAA320A7
BLANK = 0xCBD43194

def records(folder):
    for name in sorted(f for f in os.listdir(folder) if f.isdigit()):
        data = open(os.path.join(folder, name), 'rb').read()
        pos = 0
        while pos + 8 <= len(data):
            total, magic = struct.unpack_from('>iI', data, pos)
            if magic != MAGIC or total <= 0:
                break  # blank marker (BLANK) or the unwritten end of the file
            r = data[pos:pos + total]
            crc, qid, flag, qoff, phy, sysflag, born = struct.unpack_from('>iiiqqiq', r, 8)
            o = 8 + 40 + (20 if sysflag & 0x10 else 8)
            store, = struct.unpack_from('>q', r, o)
            o += 8 + (20 if sysflag & 0x20 else 8)
            recon, prep, blen = struct.unpack_from('>iqi', r, o)
            o += 16
            body = r[o:o + blen]
            o += blen
            tlen = r[o]
            topic = r[o + 1:o + 1 + tlen].decode()
            o += 1 + tlen
            plen, = struct.unpack_from('>h', r, o)
            props = r[o + 2:o + 2 + plen]
            yield dict(total=total, topic=topic, qid=qid, qoff=qoff, sysflag=sysflag, flag=flag, crc=crc,
                       reconsume=recon, prepared=prep, body=body, props=props)
            pos += total

if __name__ == '__main__':
    for r in records(sys.argv[1]):
        props = r['props'].decode()
        shown = []
        for item in props.split('\x02'):
            k, _, v = item.partition('\x01')
            shown.append(k + '=' + ('<uniq>' if k in ('UNIQ_KEY', 'MIN_OFFSET', 'MAX_OFFSET') else v))
        print('size=%d topic=%s queue=%d queueOffset=%d sysFlag=%d flag=%d bodyCRC=%d reconsume=%d prepared=%d '
              'body=%r propsLen=%d trailingSep=%s props=[%s]' % (
                  r['total'], r['topic'], r['qid'], r['qoff'], r['sysflag'], r['flag'], r['crc'], r['reconsume'],
                  r['prepared'], r['body'].decode(errors='replace'), len(r['props']), props.endswith('\x02'),
                  ', '.join(shown)))
