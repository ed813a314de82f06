// Our own program over the Apache RocketMQ 4.9.8 Java client (local only): commits OFFSET for
// GROUP on queue QUEUE_ID of TOPIC (UPDATE_CONSUMER_OFFSET, as a consumer's offset store does),
// whatever the queue holds. Usage: java -cp "<java-ref>/lib/*:." CommitOffset NAMESRV TOPIC GROUP QUEUE_ID OFFSET
import org.apache.rocketmq.client.consumer.DefaultMQPullConsumer;
import org.apache.rocketmq.client.impl.MQClientManager;
import org.apache.rocketmq.common.message.MessageQueue;

public class CommitOffset {
    public static void main(String[] args) throws Exception {
        DefaultMQPullConsumer consumer = new DefaultMQPullConsumer(args[2]);
        consumer.setNamesrvAddr(args[0]);
        consumer.start();
        MessageQueue target = null;
        for (MessageQueue mq : consumer.fetchSubscribeMessageQueues(args[1]))
            if (mq.getQueueId() == Integer.parseInt(args[3])) target = mq;
        consumer.updateConsumeOffset(target, Long.parseLong(args[4]));
        consumer.getOffsetStore().persist(target);  // oneway UPDATE_CONSUMER_OFFSET
        // A heartbeat now (the client's own first one may come before it knows the broker): the
        // broker creates the subscription group and %RETRY%GROUP, which consumerProgress needs.
        MQClientManager.getInstance().getOrCreateMQClientInstance(consumer).sendHeartbeatToAllBrokerWithLock();
        Thread.sleep(1000);
        System.out.println("committed " + args[4] + " for " + args[2] + " on " + target);
        consumer.shutdown();
    }
}
