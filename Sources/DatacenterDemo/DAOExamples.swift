import DatacenterDAO
import DatacenterKit
import Foundation

/// The example configs of `examples/` (messages, templates, conversation), embedded so the
/// demo works from any directory. Keep them identical to the files: a test compares them.
///
/// Generated from `examples/*.xml`; edit the files, then copy each into its constant.
package enum DAOExamples {
    /// Every example as (file name, XML text), in the order the demo uses them.
    package static let all: [(name: String, xml: String)] = [
        ("messages.xml", messages),
        ("templates.xml", templates),
        ("conversation.xml", conversation),
    ]

    /// `examples/messages.xml`: chat messages with an encrypted column and an upgrade history.
    package static let messages = #"""
<?xml version="1.0" encoding="UTF-8"?>
<!--
  Chat messages, one table per store. The content column is encrypted with the store's
  default key whenever a MessageModel is written (<crypt>), and decrypted when rows become
  MessageModels again (through the map). Version 1.2: a table created at 1.0 gains the read
  flag at 1.1 and the starred flag and an index at 1.2; a new table is created at 1.2.
-->
<module name="Messages" initializer="createTable" tableName="messages" version="1.2" upgradeMinVersion="1.0">
  <const columns="id, conversation, sender, time, content, read, starred"/>
  <const model_values="%{'#{m.*}', conversation, sender, time, content}"/>
  <sql id="insertModel">insert into ${T} (conversation, sender, time, content) values (${model_values})</sql>

  <map id="message" result="MessageModel">
    <result property="msgId" column="id"/>
  </map>
  <crypt class="MessageModel" property="content"/>

  <update id="createTable">
    <step>
      create table if not exists ${T} (
        id integer primary key autoincrement,
        conversation text not null,
        sender text not null,
        time integer not null,
        content blob,
        read integer not null default 0,
        starred integer not null default 0)
    </step>
    <step>create index if not exists messages_by_conversation on ${T} (conversation, time)</step>
  </update>

  <upgrade toVersion="1.1">
    <step>alter table ${T} add column read integer not null default 0</step>
  </upgrade>
  <upgrade toVersion="1.2">
    <step>alter table ${T} add column starred integer not null default 0</step>
    <step>create index if not exists messages_by_conversation on ${T} (conversation, time)</step>
  </upgrade>

  <!-- m: a MessageModel {conversation, sender, time, content}; content is stored encrypted. -->
  <insert id="insertMessage" arguments="$m">${insertModel}</insert>

  <!-- Many messages in one transaction: the body runs once per element of list. -->
  <insert id="insertMessages" arguments="list" foreach="list.m">${insertModel}</insert>

  <select id="getMessage" arguments="$id" result=":message">
    select ${columns} from ${T} where id = #{id}
  </select>

  <!-- Every filter is optional: nil (or an empty list) leaves it out. -->
  <select id="listMessages" arguments="conversation, senders, unreadOnly, limit" result="[:message]">
    select ${columns} from ${T}
    <where>
      <if true="conversation != nil">conversation = #{conversation}</if>
      <if true="senders.count > 0">
        and sender in <foreach item="s" collection="senders" open="(" separator="," close=")">#{s}</foreach>
      </if>
      <if true="unreadOnly">and read = 0</if>
    </where>
    order by time desc, id desc
    <choose>
      <when true="limit > 0">limit #{limit}</when>
      <otherwise>limit 100</otherwise>
    </choose>
  </select>

  <select id="countUnread" arguments="conversation" result="int">
    select count(*) from ${T} where read = 0 <if true="conversation != nil">and conversation = #{conversation}</if>
  </select>

  <!-- Sets only the flags given; with neither, nothing runs (onVoid="quit"). -->
  <update id="updateFlags" arguments="$id, read, starred">
    update ${T}
    <set onVoid="quit">
      <if true="read != nil">read = #{read},</if>
      <if true="starred != nil">starred = #{starred},</if>
    </set>
    where id = #{id}
  </update>

  <update id="markRead" arguments="ids">
    update ${T} set read = 1
    <where onVoid="quit">
      <if true="ids.count > 0">id in <foreach item="i" collection="ids" open="(" separator="," close=")">#{i}</foreach></if>
    </where>
  </update>

  <delete id="deleteMessage" arguments="$id">delete from ${T} where id = #{id}</delete>

  <delete id="deleteConversation" arguments="$conversation">delete from ${T} where conversation = #{conversation}</delete>
</module>

"""#

    /// `examples/templates.xml`: text templates, with try/except and steps.
    package static let templates = #"""
<?xml version="1.0" encoding="UTF-8"?>
<!--
  Text templates by name and locale, in the common store. saveTemplate inserts, or updates
  when the row exists (try/except); installDefaults runs steps, skipping those that fail.
-->
<module name="Templates" initializer="createTable" tableName="templates" version="1.0">
  <const template_columns="name, locale, body, updated"/>

  <update id="createTable">
    create table if not exists ${T} (
      name text not null,
      locale text not null,
      body text not null,
      updated integer not null default 0,
      primary key (name, locale))
  </update>

  <!-- An upsert in the dialect: the insert fails on the primary key, then the update runs. -->
  <insert id="saveTemplate" arguments="$name, $locale, $body, updated">
    <try>
      insert into ${T} (${template_columns}) values (#{name}, #{locale}, #{body}, coalesce(#{updated}, 0))
      <except>
        update ${T} set body = #{body}, updated = coalesce(#{updated}, updated) where name = #{name} and locale = #{locale}
      </except>
    </try>
  </insert>

  <!-- Steps in one transaction: a resumable step that fails (the row exists) is skipped. -->
  <insert id="installDefaults">
    <step resumable="true">insert into ${T} (${template_columns}) values ('welcome', 'en', 'Welcome, {name}!', 0)</step>
    <step resumable="true">insert into ${T} (${template_columns}) values ('welcome', 'de', 'Willkommen, {name}!', 0)</step>
    <step resumable="true">insert into ${T} (${template_columns}) values ('goodbye', 'en', 'See you soon, {name}.', 0)</step>
    <step>delete from ${T} where body = ''</step>
  </insert>

  <!-- The body in the locale asked for, else in English. -->
  <select id="getTemplate" arguments="$name, locale" result="string">
    select body from ${T} where name = #{name}
    <choose>
      <when true="locale != nil">and locale in (#{locale}, 'en') order by locale = 'en'</when>
      <otherwise>and locale = 'en'</otherwise>
    </choose>
    limit 1
  </select>

  <select id="listTemplates" arguments="locales" result="[{}]">
    select ${template_columns} from ${T}
    <where>
      <if true="locales.count > 0">
        locale in <foreach item="l" collection="locales" open="(" separator="," close=")">#{l}</foreach>
      </if>
    </where>
    order by name, locale
  </select>

  <delete id="deleteTemplate" arguments="$name, locale">
    delete from ${T} where name = #{name} <if true="locale != nil">and locale = #{locale}</if>
  </delete>
</module>

"""#

    /// `examples/conversation.xml`: one table per conversation (empty tableName).
    package static let conversation = #"""
<?xml version="1.0" encoding="UTF-8"?>
<!--
  One table per conversation: tableName is empty, so the table is chosen at run time
  (DAOObject.tableName, or the table option of `datacenter dao call`). Each table is created
  on first use.
-->
<module name="Conversation" initializer="createTable" tableName="" version="1.0">
  <const line_columns="sender, text, sent"/>

  <update id="createTable">
    create table if not exists ${T} (seq integer primary key, sender text not null, text text, sent integer not null)
  </update>

  <insert id="append" arguments="$sender, text, $sent">
    insert into ${T} (${line_columns}) values (#{sender}, #{text}, #{sent})
  </insert>

  <!-- lines: [{sender, text, sent}], all in one transaction. -->
  <insert id="appendAll" arguments="lines" foreach="lines.line">
    insert into ${T} (${line_columns}) values (%{'#{line.*}', sender, text, sent})
  </insert>

  <!-- The newest lines, before seq when given. -->
  <select id="page" arguments="before, size" result="[{}]">
    select seq, ${line_columns} from ${T}
    <where><if true="before != nil">seq &lt; #{before}</if></where>
    order by seq desc
    <choose>
      <when true="size > 0">limit #{size}</when>
      <otherwise>limit 50</otherwise>
    </choose>
  </select>

  <select id="count" result="int">select count(*) from ${T}</select>

  <!-- changes: {"text": …, "sender": …}: only the keys given are set; none, nothing runs. -->
  <update id="edit" arguments="$seq, changes">
    update ${T} <trim onVoid="quit"><format prefix="set" pairs="changes"/></trim> where seq = #{seq}
  </update>
</module>

"""#
}
