import Foundation
import Testing

@testable import OpenCoreData

/// Model editor settings the fixtures do not use: typed default values, validation bounds,
/// user info, counts and ordering of relationships, configurations and fetch request templates.
@Suite struct XcodeModelFeatureTests {
    static let xml = ModelSource.model(
        """
        <entity name="Item" representedClassName="App.Item" elementID="OldItem" versionHashModifier="v2" syncable="YES">
            <attribute name="count" optional="YES" attributeType="Integer 16" defaultValueString="7" minValueString="1" maxValueString="100" usesScalarValueType="YES"/>
            <attribute name="big" optional="YES" attributeType="Integer 64" defaultValueString="9000000000" usesScalarValueType="YES"/>
            <attribute name="ratio" optional="YES" attributeType="Double" defaultValueString="0.5" usesScalarValueType="YES"/>
            <attribute name="weight" optional="YES" attributeType="Float" defaultValueString="1.25" usesScalarValueType="YES"/>
            <attribute name="price" optional="YES" attributeType="Decimal" defaultValueString="12.34"/>
            <attribute name="done" optional="YES" attributeType="Boolean" defaultValueString="YES" usesScalarValueType="YES"/>
            <attribute name="title" attributeType="String" defaultValueString="Untitled" minValueString="2" maxValueString="40" regularExpressionString="[A-Z].*"/>
            <attribute name="due" optional="YES" attributeType="Date" defaultDateTimeInterval="86400" minDateTimeInterval="0" maxDateTimeInterval="31536000" usesScalarValueType="NO"/>
            <attribute name="token" optional="YES" attributeType="UUID" defaultValueString="E621E1F8-C36C-495A-93FC-0C247A3E6E5F" usesScalarValueType="NO"/>
            <attribute name="link" optional="YES" attributeType="URI" defaultValueString="https://example.com/a"/>
            <attribute name="photo" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES" elementID="image" versionHashModifier="p1"/>
            <relationship name="tags" optional="YES" toMany="YES" minCount="1" maxCount="5" ordered="YES" deletionRule="Cascade" destinationEntity="Tag" inverseName="items" inverseEntity="Tag"/>
            <relationship name="folder" maxCount="1" deletionRule="Deny" destinationEntity="Folder"/>
            <fetchedProperty name="recentTags" optional="YES">
                <fetchRequest name="fetchedPropertyFetchRequest" entity="Tag" predicateString="name != nil"/>
            </fetchedProperty>
            <fetchIndex name="byTitle">
                <fetchIndexElement property="title" type="Binary" order="descending"/>
            </fetchIndex>
            <fetchIndex name="byTitleLength">
                <fetchIndexElement expression="title.length" expressionType="Integer 64" type="Binary" order="ascending"/>
            </fetchIndex>
            <userInfo>
                <entry key="purpose" value="testing"/>
            </userInfo>
        </entity>
        <entity name="Tag" representedClassName="Tag" syncable="YES">
            <attribute name="name" attributeType="String">
                <userInfo>
                    <entry key="shown" value="YES"/>
                </userInfo>
            </attribute>
            <relationship name="items" optional="YES" toMany="YES" deletionRule="No Action" destinationEntity="Item" inverseName="tags" inverseEntity="Item"/>
        </entity>
        <entity name="Folder" isAbstract="YES" syncable="YES"/>
        <fetchRequest name="TagsNamedA" entity="Tag" predicateString="name BEGINSWITH &quot;A&quot;" fetchLimit="10" resultType="2" returnDistinctResults="YES"/>
        <configuration name="Local">
            <memberEntity name="Item"/>
            <memberEntity name="Folder"/>
        </configuration>
        <composite name="Address">
            <attribute name="street" optional="YES" attributeType="String"/>
        </composite>
        <elements>
            <element name="Item" positionX="0" positionY="0" width="128" height="200"/>
        </elements>
        """, identifier: "")

    func load() throws -> NSManagedObjectModel {
        let folder = TemporaryDirectory()
        return try withExtendedLifetime(folder) {
            try NSManagedObjectModel(validatingContentsOf: ModelSource.write(Self.xml, in: folder))
        }
    }

    @Test func defaultValuesHaveTheAttributesType() throws {
        let item = try #require(try load().entitiesByName["Item"])
        func value(_ name: String) -> Any? { item.attributesByName[name]?.defaultValue }
        #expect((value("count") as? NSNumber)?.int16Value == 7)
        #expect((value("big") as? NSNumber)?.int64Value == 9_000_000_000)
        #expect((value("ratio") as? NSNumber)?.doubleValue == 0.5)
        #expect((value("weight") as? NSNumber)?.floatValue == 1.25)
        #expect((value("price") as? NSDecimalNumber)?.decimalValue == Decimal(string: "12.34"))
        #expect((value("done") as? NSNumber)?.boolValue == true)
        #expect(value("title") as? String == "Untitled")
        #expect(value("due") as? Date == Date(timeIntervalSinceReferenceDate: 86400))
        #expect(value("token") as? UUID == UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
        #expect(value("link") as? URL == URL(string: "https://example.com/a"))
        #expect(value("photo") == nil)
    }

    @Test func validationRulesAndStorageFlags() throws {
        let item = try #require(try load().entitiesByName["Item"])
        let attributes = item.attributesByName
        #expect(attributes["count"]?.rules.minimum == 1 && attributes["count"]?.rules.maximum == 100)
        let title = try #require(attributes["title"])
        #expect(title.rules.minimum == 2 && title.rules.maximum == 40 && title.rules.pattern == "[A-Z].*")
        #expect(attributes["due"]?.rules.minimum == 0 && attributes["due"]?.rules.maximum == 31_536_000)
        let photo = try #require(attributes["photo"])
        #expect(photo.allowsExternalBinaryDataStorage)
        #expect(photo.renamingIdentifier == "image" && photo.versionHashModifier == "p1")
    }

    @Test func entitySettingsAndUserInfo() throws {
        let model = try load()
        let item = try #require(model.entitiesByName["Item"])
        #expect(item.managedObjectClassName == "App.Item")
        #expect(item.renamingIdentifier == "OldItem" && item.versionHashModifier == "v2")
        #expect(item.userInfo?["purpose"] as? String == "testing")
        #expect(model.entitiesByName["Tag"]?.attributesByName["name"]?.userInfo?["shown"] as? String == "YES")
        #expect(model.entitiesByName["Folder"]?.isAbstract == true)
        #expect(model.entitiesByName["Folder"]?.managedObjectClassName == "NSManagedObject")
        #expect(model.versionIdentifiers == [AnyHashable("")], "an empty identifier is kept, as Core Data stores [\"\"]")
        #expect((item.propertiesByName["recentTags"] as? NSFetchedPropertyDescription)?.fetchRequest?.entityName == "Tag")
    }

    @Test func relationshipCountsOrderAndDeleteRules() throws {
        let model = try load()
        let item = try #require(model.entitiesByName["Item"])
        let tags = try #require(item.relationshipsByName["tags"])
        #expect(tags.isToMany && tags.isOrdered && tags.minCount == 1 && tags.maxCount == 5)
        #expect(tags.deleteRule == .cascadeDeleteRule)
        #expect(tags.inverseRelationship?.deleteRule == .noActionDeleteRule)
        let folder = try #require(item.relationshipsByName["folder"])
        #expect(!folder.isToMany && !folder.isOptional && folder.deleteRule == .denyDeleteRule)
        #expect(folder.inverseRelationship == nil && folder.destinationEntity?.name == "Folder")
    }

    @Test func fetchIndexesWithPropertiesOnly() throws {
        let item = try #require(try load().entitiesByName["Item"])
        #expect(item.indexes.map(\.name) == ["byTitle"], "expression indexes are skipped")
        #expect(item.indexes.first?.elements.first?.isAscending == false)
    }

    @Test func configurationsAndFetchRequestTemplates() throws {
        let model = try load()
        #expect(model.configurations == ["Local"])
        #expect(model.entities(forConfigurationName: "Local")?.map(\.name) == ["Item", "Folder"])
        let request = try #require(model.fetchRequestTemplate(forName: "TagsNamedA"))
        #expect(request.entity === model.entitiesByName["Tag"])
        #expect(request.fetchLimit == 10 && request.resultType == .dictionaryResultType && request.returnsDistinctResults)
        #expect(model.fetchRequestTemplatePredicateStrings["TagsNamedA"] == "name BEGINSWITH \"A\"")
        #expect(model.fetchRequestTemplatesByName.count == 1, "a fetched property's request is not a template")
    }

    @Test func theLoadedModelCanBeUsed() throws {
        let model = try load()
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(type: .inMemory, at: URL(string: "memory://features")!)
        let context = NSManagedObjectContext(concurrencyType: .mainQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        let item = NSEntityDescription.insertNewObject(forEntityName: "Item", into: context)
        #expect((item.value(forKey: "count") as? NSNumber)?.intValue == 7)
        #expect(item.value(forKey: "title") as? String == "Untitled")
    }
}
