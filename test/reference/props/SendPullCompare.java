// Our own program over the Apache RocketMQ 4.9.8 Java client (local only, not CI): sends a plain
// message, a batch, a delayed message and one with 14 user properties, each to its own queue of
// TOPIC, then pulls every queue from offset 0 and prints what the client sees (SendResult,
// PullResult, every MessageExt field, getProperties() sorted and in its HashMap order). Times,
// hosts and ids are masked so the output of two brokers can be diffed.
// Usage: java -cp "<java-ref>/lib/*:." SendPullCompare NAMESRV TOPIC
import java.nio.charset.StandardCharsets;
import java.util.*;
import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.consumer.PullResult;
import org.apache.rocketmq.client.consumer.PullStatus;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendResult;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageExt;
import org.apache.rocketmq.common.message.MessageQueue;

public class SendPullCompare {
    static String mask(String s) { return s == null ? "null" : "<" + s.length() + " chars>"; }

    static void printSend(String what, SendResult r) {
        System.out.println("send " + what + ": status=" + r.getSendStatus() + " queueId=" + r.getMessageQueue().getQueueId()
            + " queueOffset=" + r.getQueueOffset() + " regionId=" + r.getRegionId() + " traceOn=" + r.isTraceOn()
            + " msgId=" + mask(r.getMsgId()) + " offsetMsgId=" + mask(r.getOffsetMsgId())
            + " transactionId=" + r.getTransactionId());
    }

    static void printMessage(MessageExt m) {
        System.out.println("  msg topic=" + m.getTopic() + " queueId=" + m.getQueueId() + " queueOffset=" + m.getQueueOffset()
            + " flag=" + m.getFlag() + " sysFlag=" + m.getSysFlag() + " reconsumeTimes=" + m.getReconsumeTimes()
            + " bodyCRC=" + m.getBodyCRC() + " storeSize=" + m.getStoreSize()
            + " preparedTransactionOffset=" + m.getPreparedTransactionOffset()
            + " body=" + new String(m.getBody(), StandardCharsets.UTF_8)
            + " msgId=" + mask(m.getMsgId()) + " bornHostSet=" + (m.getBornHost() != null)
            + " storeHost=" + m.getStoreHost() + " tags=" + m.getTags() + " keys=" + m.getKeys()
            + " delayLevel=" + m.getDelayTimeLevel() + " waitStoreMsgOK=" + m.isWaitStoreMsgOK());
        Map<String, String> p = new TreeMap<>(m.getProperties());
        p.replaceAll((k, v) -> k.equals("UNIQ_KEY") || k.equals("MIN_OFFSET") || k.equals("MAX_OFFSET") ? mask(v) : v);
        System.out.println("    properties(sorted)=" + p);
        System.out.println("    properties(client HashMap order)=" + m.getProperties().keySet());
    }

    public static void main(String[] args) throws Exception {
        String ns = args[0], topic = args[1];
        DefaultMQProducer producer = new DefaultMQProducer("cmp_pg");
        producer.setNamesrvAddr(ns);
        producer.start();
        List<MessageQueue> mqs = new ArrayList<>(producer.fetchPublishMessageQueues(topic));
        mqs.sort(Comparator.comparingInt(MessageQueue::getQueueId));

        Message plain = new Message(topic, "TagA", "key-1 key-2", "hello-plain".getBytes(StandardCharsets.UTF_8));
        plain.putUserProperty("color", "red");
        plain.putUserProperty("zeta", "z");
        printSend("plain", producer.send(plain, mqs.get(0)));

        List<Message> batch = new ArrayList<>();
        for (int i = 0; i < 2; i++) batch.add(new Message(topic, "TagB", "batch-" + i, ("hello-batch-" + i).getBytes(StandardCharsets.UTF_8)));
        printSend("batch", producer.send(batch, mqs.get(1)));

        Message delayed = new Message(topic, "TagC", "delayed-1", "hello-delayed".getBytes(StandardCharsets.UTF_8));
        delayed.setDelayTimeLevel(1);
        printSend("delayed", producer.send(delayed, mqs.get(2)));

        Message many = new Message(topic, "TagD", "many-1", "hello-many".getBytes(StandardCharsets.UTF_8));
        for (int i = 0; i < 14; i++) many.putUserProperty("user" + i, "v" + i);
        printSend("many", producer.send(many, mqs.get(3)));
        producer.shutdown();

        Thread.sleep(3000);  // delay level 1 = 1 s
        DefaultMQPullConsumer consumer = new DefaultMQPullConsumer("cmp_cg");
        consumer.setNamesrvAddr(ns);
        consumer.start();
        for (MessageQueue mq : mqs) {
            PullResult r = null;
            for (int i = 0; i < 20; i++) {
                r = consumer.pull(mq, "*", 0, 32);
                if (r.getPullStatus() == PullStatus.FOUND) break;
                Thread.sleep(500);
            }
            System.out.println("pull queue " + mq.getQueueId() + ": status=" + r.getPullStatus() + " nextBeginOffset="
                + r.getNextBeginOffset() + " minOffset=" + r.getMinOffset() + " maxOffset=" + r.getMaxOffset()
                + " found=" + (r.getMsgFoundList() == null ? 0 : r.getMsgFoundList().size()));
            if (r.getMsgFoundList() != null) for (MessageExt m : r.getMsgFoundList()) printMessage(m);
            PullResult after = consumer.pull(mq, "*", r.getNextBeginOffset(), 32);
            System.out.println("pull queue " + mq.getQueueId() + " at its end: status=" + after.getPullStatus()
                + " nextBeginOffset=" + after.getNextBeginOffset() + " minOffset=" + after.getMinOffset()
                + " maxOffset=" + after.getMaxOffset());
        }
        consumer.shutdown();
    }
}
