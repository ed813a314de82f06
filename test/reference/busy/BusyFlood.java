// Manual measurement (not built by CMake): the Java 4.9.8 producer flooding one broker over its one
// connection (async sends, `inflight` at a time, 3 s timeout each) for `seconds`; counts the answers
// by kind: SEND_OK, SYSTEM_BUSY (code 2; first remark printed), client timeouts, other, with the
// slowest busy answer and the SEND_OK latency percentiles. Usage (from /work/anchors/java):
//   javac -cp 'lib/*' -d /tmp/busyprobe BusyFlood.java
//   java -cp "lib/*:/tmp/busyprobe" BusyFlood <namesrv> <topic> <inflight> <seconds> <bodyBytes>
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.rocketmq.client.exception.MQBrokerException;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendCallback;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;

public class BusyFlood {
    public static void main(String[] args) throws Exception {
        String ns = args[0], topic = args[1];
        int inflight = Integer.parseInt(args[2]);
        long seconds = Long.parseLong(args[3]);
        byte[] body = new byte[Integer.parseInt(args[4])];
        DefaultMQProducer p = new DefaultMQProducer("BusyFloodGroup");
        p.setNamesrvAddr(ns);
        p.setCompressMsgBodyOverHowmuch(Integer.MAX_VALUE);
        p.setMaxMessageSize(8 * 1024 * 1024);
        p.start();
        p.send(new Message(topic, body));  // route and connection
        AtomicLong ok = new AtomicLong(), busy = new AtomicLong(), timeouts = new AtomicLong(), other = new AtomicLong();
        AtomicLong slowestBusy = new AtomicLong();
        AtomicReference<String> busyRemark = new AtomicReference<>(), otherText = new AtomicReference<>();
        ConcurrentLinkedQueue<Long> okMs = new ConcurrentLinkedQueue<>();
        Semaphore permits = new Semaphore(inflight);
        long end = System.currentTimeMillis() + seconds * 1000;
        while (System.currentTimeMillis() < end) {
            permits.acquire();
            final long t0 = System.currentTimeMillis();
            p.send(new Message(topic, body), new SendCallback() {
                public void onSuccess(SendResult r) {
                    ok.incrementAndGet();
                    okMs.add(System.currentTimeMillis() - t0);
                    permits.release();
                }
                public void onException(Throwable e) {
                    long ms = System.currentTimeMillis() - t0;
                    Throwable c = e;
                    while (c.getCause() != null && !(c instanceof MQBrokerException)) c = c.getCause();
                    if (c instanceof MQBrokerException && ((MQBrokerException) c).getResponseCode() == 2) {
                        busy.incrementAndGet();
                        slowestBusy.accumulateAndGet(ms, Math::max);
                        busyRemark.compareAndSet(null, ((MQBrokerException) c).getErrorMessage());
                    } else if (String.valueOf(e).toLowerCase().contains("timeout")) {
                        timeouts.incrementAndGet();
                    } else {
                        other.incrementAndGet();
                        otherText.compareAndSet(null, String.valueOf(e));
                    }
                    permits.release();
                }
            }, 3000);
        }
        permits.acquire(inflight);  // every answer (or timeout) is in
        Long[] lat = okMs.toArray(new Long[0]);
        java.util.Arrays.sort(lat);
        String pct = lat.length == 0 ? "-" : String.format("p50 %d p99 %d max %d ms", lat[lat.length / 2],
            lat[(int) (lat.length * 0.99)], lat[lat.length - 1]);
        System.out.printf("ok=%d busy=%d timeouts=%d other=%d slowestBusy=%dms ok-latency %s%n", ok.get(), busy.get(),
            timeouts.get(), other.get(), slowestBusy.get(), pct);
        if (busyRemark.get() != null) System.out.println("first busy remark: " + busyRemark.get());
        if (otherText.get() != null) System.out.println("first other: " + otherText.get());
        p.shutdown();
    }
}
