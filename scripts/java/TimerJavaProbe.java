// The unchanged Apache RocketMQ 4.x Java client sending timer messages to rmqnode (issue 22): N
// timers spread over SPREAD_MS, set as 5.x's user properties (TIMER_DELIVER_MS for most,
// TIMER_DELAY_SEC for every tenth), sent by THREADS threads in time order; then a
// DefaultMQPullConsumer reads every queue of TOPIC from offset 0 until all N bodies are there (or
// the time is out) and prints one SUMMARY line: delivered, duplicates, how many were held by the
// timer (TIMER_OUT_MS set) or stored at once (sent within the precision of their time), early
// ones (store time < TIMER_OUT_MS), lag p50 / p99 / max (store time - TIMER_OUT_MS). Exit 1 when
// one is missing, duplicated or early. Not run in CI (no Java there): test/reference/timer/.
// Usage: java -cp "<reference>/lib/*:<dir>" TimerJavaProbe NAMESRV TOPIC N SPREAD_MS THREADS
import java.util.*;
import java.util.concurrent.atomic.*;
import org.apache.rocketmq.client.consumer.*;
import org.apache.rocketmq.client.producer.*;
import org.apache.rocketmq.common.message.*;

public class TimerJavaProbe {
  public static void main(String[] a) throws Exception {
    String ns = a[0], topic = a[1];
    int n = Integer.parseInt(a[2]), threads = Integer.parseInt(a[4]);
    long spread = Long.parseLong(a[3]);
    DefaultMQProducer producer = new DefaultMQProducer("pg_timer_java_probe");
    producer.setNamesrvAddr(ns);
    producer.start();
    long t0 = System.currentTimeMillis() + 5000;
    AtomicLong failed = new AtomicLong();
    List<Thread> workers = new ArrayList<>();
    for (int k = 0; k < threads; k++) {
      final int first = k;
      Thread t = new Thread(() -> {
        for (int i = first; i < n; i += threads) {
          long at = t0 + i * spread / n;
          Message m = new Message(topic, "TagJ", ("j" + i).getBytes());
          if (i % 10 == 2) m.putUserProperty("TIMER_DELAY_SEC", String.valueOf((at - System.currentTimeMillis()) / 1000));
          else m.putUserProperty("TIMER_DELIVER_MS", String.valueOf(at));
          try {
            producer.send(m);
          } catch (Exception e) {
            failed.incrementAndGet();
          }
        }
      });
      t.start();
      workers.add(t);
    }
    for (Thread t : workers) t.join();
    long sentAt = System.currentTimeMillis();
    producer.shutdown();
    System.out.println("sent " + n + " in " + (sentAt - (t0 - 5000)) + " ms, failed " + failed.get());

    DefaultMQPullConsumer consumer = new DefaultMQPullConsumer("cg_timer_java_probe");
    consumer.setNamesrvAddr(ns);
    consumer.start();
    Map<String, Integer> copies = new HashMap<>();
    List<Long> lags = new ArrayList<>();
    long held = 0, atOnce = 0, early = 0;
    Map<MessageQueue, Long> next = new HashMap<>();
    for (MessageQueue mq : consumer.fetchSubscribeMessageQueues(topic)) next.put(mq, 0L);
    long deadline = t0 + spread + 30000;
    while (copies.size() < n && System.currentTimeMillis() < deadline) {
      for (MessageQueue mq : next.keySet()) {
        for (;;) {
          PullResult r = consumer.pull(mq, "*", next.get(mq), 32);
          if (r.getPullStatus() != PullStatus.FOUND) break;
          for (MessageExt m : r.getMsgFoundList()) {
            String body = new String(m.getBody());
            copies.merge(body, 1, Integer::sum);
            String out = m.getProperty("TIMER_OUT_MS");
            if (out == null) {
              atOnce++;
              continue;
            }
            held++;
            long lag = m.getStoreTimestamp() - Long.parseLong(out);
            if (lag < 0) early++;
            lags.add(lag);
          }
          next.put(mq, r.getNextBeginOffset());
        }
      }
      Thread.sleep(500);
    }
    consumer.shutdown();
    long dup = 0;
    for (int c : copies.values()) dup += c - 1;
    Collections.sort(lags);
    String lag = lags.isEmpty() ? "none"
        : "min " + lags.get(0) + " p50 " + lags.get(lags.size() / 2) + " p99 " + lags.get(lags.size() * 99 / 100)
          + " max " + lags.get(lags.size() - 1);
    System.out.println("SUMMARY java timer: delivered " + copies.size() + " of " + n + ", duplicates " + dup
        + ", held by the timer " + held + ", stored at once " + atOnce + ", early " + early + ", lag ms " + lag);
    System.exit(copies.size() == n && dup == 0 && early == 0 ? 0 : 1);
  }
}
